/* Unit tests of runtime/state/container_dir.c: container IDs, and the state
 * directory made, locked, found and removed in a state root of the
 * test's own (a temporary directory; no privileges needed). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container_dir.h"
#include "unit.h"
#include "util.h"

static char root[PATH_MAX];

TEST(ids)
{
	static const char *const good[] = {"a", "ct-1", "x.y_z+1",
					   "0123456789abcdef"};
	static const char *const bad[] = {"",	 ".hidden", "a/b", "..",
					  "a b", "a\nb",    "é"};
	char longest[1026];

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		CHECK(container_id_validate(good[i], NULL) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(container_id_validate(bad[i], NULL) < 0);
	memset(longest, 'a', 1025);
	longest[1025] = '\0';
	CHECK(container_id_validate(longest, NULL) < 0);
	longest[1024] = '\0';
	CHECK(container_id_validate(longest, NULL) == 0);
}

TEST(create_twice_open_remove)
{
	struct container_dir d = {-1, -1}, again = {-1, -1};
	struct error *err = NULL;
	char path[PATH_MAX + 16];
	struct stat st;

	CHECK(container_dir_create(root, "c1", &d, &err) == 0);
	CHECK(container_dir_create(root, "c1", &again, &err) < 0);
	CHECK(err && strcmp(err->msg, "container c1 already exists") == 0);
	error_free(err);
	err = NULL;
	snprintf(path, sizeof(path), "%s/c1", root);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0700);
	CHECK(container_dir_remove(root, "c1", &d, &err) == 0);
	container_dir_close(&d);
	CHECK(stat(path, &st) < 0 && errno == ENOENT);
}

/* A directory without state.json (a create that died) is no container;
 * once the create's lock is gone, open says so at once. */
TEST(a_directory_without_state_is_no_container)
{
	struct container_dir d = {-1, -1}, o = {-1, -1};
	struct error *err = NULL;

	CHECK(container_dir_create(root, "c3", &d, NULL) == 0);
	if (d.lockfd >= 0)
		close(d.lockfd);
	d.lockfd = -1;
	CHECK(container_dir_open(root, "c3", &o, &err) < 0);
	CHECK(err && strcmp(err->msg, "container c3 does not exist") == 0);
	error_free(err);
	CHECK(container_dir_remove(root, "c3", &d, NULL) == 0);
	container_dir_close(&d);
}

TEST(the_lock_serialises_commands)
{
	struct container_dir d = {-1, -1};
	int fd;
	char path[PATH_MAX + 32];

	CHECK(container_dir_create(root, "c2", &d, NULL) == 0);
	snprintf(path, sizeof(path), "%s/c2/lock", root);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	/* held by the create: another taker would wait */
	CHECK(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0 &&
	      errno == EWOULDBLOCK);
	if (fd >= 0)
		close(fd);
	CHECK(container_dir_remove(root, "c2", &d, NULL) == 0);
	container_dir_close(&d);
}

TEST(a_link_in_the_root_is_no_container)
{
	struct container_dir d = {-1, -1};
	struct error *err = NULL;
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/evil", root);
	CHECK(symlink("/etc", path) == 0);
	CHECK(container_dir_open(root, "evil", &d, &err) < 0);
	CHECK(err && strcmp(err->msg, "container evil does not exist") == 0);
	error_free(err);
	unlink(path);
}

int main(void)
{
	int r;

	snprintf(root, sizeof(root), "/tmp/corral-state-XXXXXX");
	if (!mkdtemp(root))
		return 1;
	r = unit_run();
	rmdir(root);
	return r;
}
