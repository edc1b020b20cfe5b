/* config.json's seccomp filter, compiled by libseccomp once per distinct
 * filter and then read back from the state root.
 *
 * Engines send the same large profile with every container (podman's
 * default has 437 names in 22 rules); libseccomp takes milliseconds to
 * build it, on every create and exec.  The cache lives in ROOT/.seccomp,
 * a directory only root can reach, like the state beside it.  An entry
 * holds its whole key, compared byte for byte on a hit: the file name is
 * only a hash, so a collision, a truncated file or a stale format is a
 * miss, never another filter.  The key is the filter as corral parsed it
 * (emitted as JSON) with everything the BPF depends on besides: corral's
 * version and binary (its inode, size and mtime, so a rebuild or an
 * upgrade starts afresh), libseccomp's version and API level, the kernel
 * release and the native architecture.  Any failure of the cache falls back to
 * compiling; at most CACHE_MAX entries are kept, so config.json cannot
 * fill /run. */
#include "seccomp_filter.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

#define CACHE_DIR ".seccomp"
#define CACHE_MAX 64
#define CACHE_MAGIC "corral-seccomp-1\n"

static char *cache_key(const struct spec_seccomp *sc)
{
	const struct scmp_version *v = seccomp_version();
	struct spec_linux linux_ = {.seccomp = (struct spec_seccomp *)sc};
	struct spec s = {.oci_version = (char *)"-", .linux_ = &linux_};
	_cleanup_free_ char *json = NULL;
	struct utsname u;
	struct stat exe;
	char *key = NULL;

	if (uname(&u) < 0 || stat("/proc/self/exe", &exe) < 0 ||
	    spec_emit(&s, &json, NULL, NULL) < 0)
		return NULL;
	if (asprintf(&key,
		     "corral %s exe %llx:%llx:%lld:%lld.%09ld libseccomp "
		     "%u.%u.%u api %u kernel %s arch %08x\n%s",
		     CORRAL_VERSION, (unsigned long long)exe.st_dev,
		     (unsigned long long)exe.st_ino, (long long)exe.st_size,
		     (long long)exe.st_mtim.tv_sec, exe.st_mtim.tv_nsec,
		     v->major, v->minor, v->micro, seccomp_api_get(), u.release,
		     seccomp_arch_native(), json) < 0)
		return NULL;
	return key;
}

/* FNV-1a, 64 bits: a file name, not a guarantee (the key is stored). */
static void key_name(const char *key, char name[17])
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	snprintf(name, 17, "%016llx", (unsigned long long)h);
}

/* Entry: MAGIC, "KEYLEN FLAGS INSNS\n", the key, the instructions. */
static int cache_read(int dirfd, const char *name, const char *key,
		      struct seccomp_program *out)
{
	_cleanup_free_ char *buf = NULL;
	size_t len, klen, insns, mlen = strlen(CACHE_MAGIC);
	unsigned flags;
	char *p, *end;

	if (read_file_at(dirfd, name, &buf, &len, NULL) < 0 || len < mlen ||
	    memcmp(buf, CACHE_MAGIC, mlen) != 0)
		return -1;
	p = buf + mlen;
	if (sscanf(p, "%zu %u %zu\n", &klen, &flags, &insns) != 3 ||
	    !(end = memchr(p, '\n', len - mlen)))
		return -1;
	p = end + 1;
	if (insns == 0 || insns > BPF_MAXINSNS || klen != strlen(key) ||
	    (size_t)(buf + len - p) !=
		klen + insns * sizeof(struct sock_filter) ||
	    memcmp(p, key, klen) != 0)
		return -1;
	out->prog.filter = malloc(insns * sizeof(struct sock_filter));
	if (!out->prog.filter)
		return -1;
	memcpy(out->prog.filter, p + klen, insns * sizeof(struct sock_filter));
	out->prog.len = (unsigned short)insns;
	out->flags = flags;
	return 0;
}

static size_t cache_entries(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	size_t n = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return SIZE_MAX;
	}
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void cache_write(int dirfd, const char *name, const char *key,
			const struct seccomp_program *p)
{
	size_t size = p->prog.len * sizeof(struct sock_filter);
	_cleanup_free_ char *head = NULL, *buf = NULL;
	int hlen;

	if (cache_entries(dirfd) >= CACHE_MAX)
		return;
	hlen = asprintf(&head, "%s%zu %u %u\n", CACHE_MAGIC, strlen(key),
			p->flags, (unsigned)p->prog.len);
	if (hlen < 0 || !(buf = malloc((size_t)hlen + strlen(key) + size)))
		return;
	memcpy(buf, head, (size_t)hlen);
	memcpy(buf + hlen, key, strlen(key));
	memcpy(buf + hlen + strlen(key), p->prog.filter, size);
	write_file_atomic_at(dirfd, name, buf,
			     (size_t)hlen + strlen(key) + size, 0600, NULL);
}

int seccomp_compile_cached(const char *root, const struct spec_seccomp *sc,
			   struct seccomp_program *out, struct error **err)
{
	_cleanup_free_ char *key = cache_key(sc);
	_cleanup_close_ int rootfd = -1, dirfd = -1;
	char name[17];

	*out = (struct seccomp_program){0};
	if (key && root)
		rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd >= 0 &&
	    (mkdirat(rootfd, CACHE_DIR, 0700) == 0 || errno == EEXIST))
		dirfd = openat(rootfd, CACHE_DIR,
			       O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0)
		return seccomp_compile(sc, out, err);
	key_name(key, name);
	if (cache_read(dirfd, name, key, out) == 0)
		return 0;
	if (seccomp_compile(sc, out, err) < 0)
		return -1;
	cache_write(dirfd, name, key, out);
	return 0;
}
