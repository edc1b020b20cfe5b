/* Unit tests of runtime/fs/hostpath.c: a host path is opened once, never
 * through a symbolic link or a /proc magic link, a walk beneath a
 * directory never leaves it, and the check is made on what was opened.
 * On a tree made in a temporary directory; no privileges needed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostpath.h"
#include "unit.h"
#include "util.h"

static char top[PATH_MAX];

/* TOP/dir/file, TOP/dir/sub/, TOP/link -> dir, TOP/dir/up -> ..,
 * TOP/dir/abs -> /etc, TOP/dir/in -> sub */
static void make_tree(void)
{
	char p[PATH_MAX + 32];
	int fd;

	snprintf(top, sizeof(top), "/tmp/corral-hostpath-XXXXXX");
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(p, sizeof(p), "%s/dir", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dir/sub", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dir/file", top);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	close(fd);
	snprintf(p, sizeof(p), "%s/link", top);
	if (symlink("dir", p) < 0)
		perror("symlink");
	snprintf(p, sizeof(p), "%s/dir/up", top);
	if (symlink("..", p) < 0)
		perror("symlink");
	snprintf(p, sizeof(p), "%s/dir/abs", top);
	if (symlink("/etc", p) < 0)
		perror("symlink");
	snprintf(p, sizeof(p), "%s/dir/in", top);
	if (symlink("sub", p) < 0)
		perror("symlink");
}

static void remove_tree(void)
{
	static const char *const names[] = {"dir/in", "dir/abs",  "dir/up",
					    "link",   "dir/file", "dir/sub",
					    "dir"};
	char p[PATH_MAX + 32];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(p, sizeof(p), "%s/%s", top, names[i]);
		if (unlink(p) < 0)
			rmdir(p);
	}
	rmdir(top);
}

static char *at(const char *rel)
{
	static char buf[4][PATH_MAX + 64];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", top, rel);
	return b;
}

/* The error of an open that must fail, or "(opened)"; frees *err.  (A
 * macro: the open must run before its error is read.) */
static char *error_of(int fd, struct error **err)
{
	char *msg = strdup(fd >= 0 ? "(opened)"
			   : *err  ? (*err)->msg
				   : "(none)");

	if (fd >= 0)
		close(fd);
	error_free(*err);
	*err = NULL;
	return msg;
}
#define fails(call, err_var)                                                   \
	({                                                                     \
		int fd_ = (call);                                              \
		error_of(fd_, &(err_var));                                     \
	})

TEST(a_plain_path_opens)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_close_ int fd =
	    hostpath_open(at("dir/file"), O_PATH, "source", &err);

	CHECK(fd >= 0);
	CHECK(hostpath_check_under(fd, at("dir"), "source", &err) == 0);
}

TEST(a_link_anywhere_is_refused_and_named)
{
	struct error *err = NULL;
	char *last =
	    fails(hostpath_open(at("link"), O_PATH, "source", &err), err);
	char *mid = NULL, *magic = NULL;
	char want[PATH_MAX + 128];

	err = NULL;
	mid =
	    fails(hostpath_open(at("link/file"), O_PATH, "source", &err), err);
	err = NULL;
	magic =
	    fails(hostpath_open("/proc/self/cwd", O_PATH, "source", &err), err);
	snprintf(want, sizeof(want),
		 "source %s: %s is a symbolic link (not followed)", at("link"),
		 at("link"));
	CHECK_STR(last, want);
	snprintf(want, sizeof(want),
		 "source %s: %s is a symbolic link (not followed)",
		 at("link/file"), at("link"));
	CHECK_STR(mid, want);
	CHECK(magic && strstr(magic, "symbolic link"));
	free(last);
	free(mid);
	free(magic);
}

TEST(beneath_never_leaves_the_directory)
{
	struct error *err = NULL;
	char *up = fails(hostpath_open_beneath(at("dir"), at("dir/up/link"),
					       true, O_PATH, "source", &err),
			 err);
	char *abs = NULL, *nolinks = NULL;
	_cleanup_error_ struct error *e2 = NULL;
	_cleanup_close_ int in = -1;

	err = NULL;
	abs = fails(hostpath_open_beneath(at("dir"), at("dir/abs/passwd"), true,
					  O_PATH, "source", &err),
		    err);
	err = NULL;
	nolinks = fails(hostpath_open_beneath(at("dir"), at("dir/in"), false,
					      O_PATH, "source", &err),
			err);
	/* a link that stays below is followed when the entry allows it */
	in = hostpath_open_beneath(at("dir"), at("dir/in"), true,
				   O_PATH | O_DIRECTORY, "source", &e2);
	CHECK(up && strstr(up, "leaves"));
	CHECK(abs && (strstr(abs, "leaves") || strstr(abs, "symbolic")));
	CHECK(nolinks && strstr(nolinks, "is a symbolic link"));
	CHECK(in >= 0);
	CHECK(in >= 0 &&
	      hostpath_check_under(in, at("dir/sub"), "source", &e2) == 0);
	free(up);
	free(abs);
	free(nolinks);
}

TEST(the_check_is_on_what_was_opened)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_close_ int fd =
	    hostpath_open(at("dir/sub"), O_PATH, "source", NULL);

	CHECK(fd >= 0);
	CHECK(fd >= 0 &&
	      hostpath_check_under(fd, at("dir/file"), "source", &err) < 0);
	CHECK(err && strstr(err->msg, "which is not below"));
}

TEST(a_relative_path_is_refused)
{
	struct error *err = NULL;
	char *msg =
	    fails(hostpath_open("etc/passwd", O_PATH, "source", &err), err);

	CHECK_STR(msg, "source etc/passwd: not an absolute path");
	free(msg);
}

int main(void)
{
	int r;

	make_tree();
	r = unit_run();
	remove_tree();
	return r;
}
