/* Unit tests of runtime/base/fsutil.c: whole-file reads with their limit,
 * atomic writes, paths resolved inside a root (links in the tree stay in
 * it), and lookups in colon-separated files. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "unit.h"
#include "util.h"

static char top[PATH_MAX];

static char *at(const char *rel)
{
	static char buf[4][PATH_MAX + 64];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", top, rel);
	return b;
}

TEST(write_atomically_then_read_back)
{
	_cleanup_close_ int dir = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	struct stat st;

	CHECK(write_file_atomic_at(dir, "state.json", "{\"a\":1}", 7, 0600,
				   NULL) == 0);
	CHECK(write_file_atomic_at(dir, "state.json", "{\"a\":2}", 7, 0600,
				   NULL) == 0);
	CHECK(read_file_at(dir, "state.json", &text, &len, NULL) == 0);
	CHECK_STR(text, "{\"a\":2}");
	CHECK(len == 7);
	CHECK(stat(at("state.json"), &st) == 0 && (st.st_mode & 0777) == 0600);
	unlink(at("state.json"));
}

TEST(a_missing_file_names_itself)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *text = NULL;

	CHECK(read_file_at(AT_FDCWD, at("nope"), &text, NULL, &err) < 0);
	CHECK(err && strstr(err->msg, "nope") &&
	      strstr(err->msg, "No such file"));
}

/* ROOT/etc/x, ROOT/out -> /etc (absolute: inside ROOT it is ROOT/etc),
 * ROOT/up -> ../../.. (climbing: stays at ROOT). */
TEST(paths_resolve_inside_the_root)
{
	_cleanup_close_ int rootfd = -1, a = -1, b = -1;
	char want[PATH_MAX + 64], got[PATH_MAX], p[FD_PATH_MAX];
	ssize_t n;
	int fd;

	mkdir(at("root"), 0755);
	mkdir(at("root/etc"), 0755);
	fd = open(at("root/etc/x"), O_CREAT | O_WRONLY, 0644);
	close(fd);
	CHECK(symlink("/etc", at("root/out")) == 0);
	CHECK(symlink("../../..", at("root/up")) == 0);
	rootfd = open(at("root"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	a = open_in_root(rootfd, "/out/x", O_PATH, NULL);
	b = open_in_root(rootfd, "/up/up/etc/x", O_PATH, NULL);
	CHECK(a >= 0 && b >= 0);
	snprintf(want, sizeof(want), "%s", at("root/etc/x"));
	fd_path(a, p);
	n = a >= 0 ? readlink(p, got, sizeof(got) - 1) : -1;
	CHECK(n > 0 && (got[n] = '\0', strcmp(got, want) == 0));
	/* no link allowed at all */
	CHECK(open_in_root_nolinks(rootfd, "/out/x", O_PATH, NULL) < 0);
	/* made inside the root, through the link */
	CHECK(mkdir_in_root(rootfd, "/out/made/deeper", false, NULL) == 0);
	CHECK(access(at("root/etc/made/deeper"), F_OK) == 0);
	rmdir(at("root/etc/made/deeper"));
	rmdir(at("root/etc/made"));
	unlink(at("root/etc/x"));
	unlink(at("root/out"));
	unlink(at("root/up"));
	rmdir(at("root/etc"));
	rmdir(at("root"));
}

/* open_made_in_root: an existing entry is opened as it is, a missing one
 * made (a file or a directory, through links, inside the root) and then
 * opened; `nolinks` refuses a link on the way either way. */
TEST(open_made_in_root_opens_or_makes)
{
	_cleanup_close_ int rootfd = -1, dir = -1, file = -1, made = -1;
	_cleanup_error_ struct error *err = NULL;
	struct stat st;

	mkdir(at("mroot"), 0755);
	mkdir(at("mroot/etc"), 0755);
	CHECK(symlink("/etc", at("mroot/out")) == 0);
	rootfd = open(at("mroot"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	dir = open_made_in_root(rootfd, "/etc", false, O_PATH | O_DIRECTORY,
				true, NULL);
	CHECK(dir >= 0 && fstat(dir, &st) == 0 && S_ISDIR(st.st_mode));
	file =
	    open_made_in_root(rootfd, "/out/new/f", true, O_PATH, false, NULL);
	CHECK(file >= 0 && fstat(file, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(access(at("mroot/etc/new/f"), F_OK) == 0);
	CHECK(open_made_in_root(rootfd, "/out/other", false,
				O_PATH | O_DIRECTORY, true, &err) < 0);
	CHECK(err && err->code == ELOOP);
	made = open_made_in_root(rootfd, "/out/other", false,
				 O_PATH | O_DIRECTORY, false, NULL);
	CHECK(made >= 0 && access(at("mroot/etc/other"), F_OK) == 0);
	rmdir(at("mroot/etc/other"));
	unlink(at("mroot/etc/new/f"));
	rmdir(at("mroot/etc/new"));
	unlink(at("mroot/out"));
	rmdir(at("mroot/etc"));
	rmdir(at("mroot"));
}

/* A missing entry whose parent exists is made from that parent alone; a
 * ".." anywhere still goes to mkdir_in_root, which refuses it. */
TEST(open_made_in_root_makes_the_last_entry_alone)
{
	_cleanup_close_ int rootfd = -1, a = -1, b = -1;
	_cleanup_error_ struct error *err = NULL;
	struct stat st;

	mkdir(at("lroot"), 0755);
	mkdir(at("lroot/dev"), 0755);
	rootfd = open(at("lroot"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	a = open_made_in_root(rootfd, "/dev/pts", false, O_PATH | O_DIRECTORY,
			      true, NULL);
	CHECK(a >= 0 && fstat(a, &st) == 0 && S_ISDIR(st.st_mode));
	b = open_made_in_root(rootfd, "dev/null", true, O_PATH, true, NULL);
	CHECK(b >= 0 && fstat(b, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(open_made_in_root(rootfd, "/dev/../dev/shm", false,
				O_PATH | O_DIRECTORY, false, &err) < 0);
	CHECK(err && err->code == EINVAL);
	CHECK(access(at("lroot/dev/shm"), F_OK) < 0);
	unlink(at("lroot/dev/null"));
	rmdir(at("lroot/dev/pts"));
	rmdir(at("lroot/dev"));
	rmdir(at("lroot"));
}

/* The path of what an fd has open, links resolved; none for what is no
 * file of a path, or was removed since. */
TEST(fd_real_path_names_what_was_opened)
{
	_cleanup_close_ int fd = -1, gone = -1;
	_cleanup_free_ char *path = NULL, *want = NULL;
	int p[2];

	mkdir(at("real"), 0755);
	CHECK(symlink("real", at("link")) == 0);
	fd = open(at("link"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	path = fd_real_path(fd);
	want = realpath(at("real"), NULL);
	CHECK(path && want);
	CHECK_STR(path, want);
	CHECK(pipe(p) == 0);
	errno = 0;
	CHECK(fd_real_path(p[0]) == NULL && errno == ENOENT);
	close(p[0]);
	close(p[1]);
	mkdir(at("gone"), 0755);
	gone = open(at("gone"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	rmdir(at("gone"));
	errno = 0;
	CHECK(fd_real_path(gone) == NULL && errno == ENOENT);
	unlink(at("link"));
	rmdir(at("real"));
}

TEST(a_pid_file_is_whole)
{
	_cleanup_free_ char *text = NULL;

	CHECK(write_pid_file(at("pid"), 4242, NULL) == 0);
	CHECK(read_file_at(AT_FDCWD, at("pid"), &text, NULL, NULL) == 0);
	CHECK_STR(text, "4242");
	unlink(at("pid"));
}

/* In a directory another user may write (a pid file's), a name put in
 * the temporary's place, a hard link to a file of theirs choosing, is
 * never written through: the temporary is always a new file. */
TEST(a_pid_file_never_writes_through_a_planted_temporary)
{
	_cleanup_free_ char *text = NULL;
	char tmp[64];
	FILE *f = fopen(at("victim"), "we");

	CHECK(f && fputs("precious", f) >= 0 && fclose(f) == 0);
	snprintf(tmp, sizeof(tmp), ".pid.%d.tmp", (int)getpid());
	CHECK(link(at("victim"), at(tmp)) == 0);
	CHECK(write_pid_file(at("pid"), 4242, NULL) == 0);
	CHECK(read_file_at(AT_FDCWD, at("victim"), &text, NULL, NULL) == 0);
	CHECK_STR(text, "precious");
	free(text);
	text = NULL;
	CHECK(read_file_at(AT_FDCWD, at("pid"), &text, NULL, NULL) == 0);
	CHECK_STR(text, "4242");
	unlink(at("pid"));
	unlink(at("victim"));
	unlink(at(tmp));
}

/* Each lookup in a stream opened once reads it from its start: a name on
 * an earlier line than the last one found is still found. */
TEST(colon_lookups_share_one_open_file)
{
	const char *lines = "adm:x:4:\ndisk:x:6:alice\nkvm:x:993:\n";
	_cleanup_close_ int dir = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_fclose_ FILE *f = NULL;
	char buf[16] = "";

	CHECK(write_file_atomic_at(dir, "group", lines, strlen(lines), 0600,
				   NULL) == 0);
	f = fopen(at("group"), "re");
	CHECK(f != NULL);
	CHECK(colon_stream_lookup(f, 0, "kvm", 2, buf, sizeof(buf)));
	CHECK_STR(buf, "993");
	CHECK(colon_stream_lookup(f, 0, "adm", 2, buf, sizeof(buf)));
	CHECK_STR(buf, "4");
	CHECK(colon_stream_lookup(f, 0, "disk", 3, buf, sizeof(buf)));
	CHECK_STR(buf, "alice");
	CHECK(!colon_stream_lookup(f, 0, "kv", 2, buf, sizeof(buf)));
	CHECK(!colon_stream_lookup(f, 0, "disk", 2, buf, 1));
	CHECK(!colon_stream_lookup(NULL, 0, "adm", 2, buf, sizeof(buf)));
	CHECK(colon_file_lookup(at("group"), 2, "6", 0, buf, sizeof(buf)));
	CHECK_STR(buf, "disk");
	unlink(at("group"));
}

int main(void)
{
	int r;

	snprintf(top, sizeof(top), "/tmp/corral-fsutil-XXXXXX");
	if (!mkdtemp(top))
		return 1;
	r = unit_run();
	rmdir(top);
	return r;
}
