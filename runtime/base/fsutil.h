/* File and process helpers used across the runtime. */
#ifndef CORRAL_FSUTIL_H
#define CORRAL_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "error.h"

/* Read a whole file (at most 64 MiB) into a NUL-terminated buffer;
 * read_fd() reads an open one (`path` names it in errors). */
int read_file_at(int dirfd, const char *path, char **out, size_t *len,
		 struct error **err);
int read_fd(int fd, const char *path, char **out, size_t *len,
	    struct error **err);

/* Write `data` to DIR/NAME through a temporary file and rename(2), so a
 * reader sees the old content or the new, never a part.  No fsync: the
 * files describe live processes and belong on a tmpfs (/run) that a crash
 * of the machine empties along with the containers. */
int write_file_atomic_at(int dirfd, const char *name, const char *data,
			 size_t len, mode_t mode, struct error **err);

/* Write a whole buffer, retrying on EINTR and short writes. */
int write_all(int fd, const void *buf, size_t len);

/* The start time of a process (field 22 of /proc/PID/stat) and its state
 * letter; -1 when the process does not exist. */
int proc_stat(pid_t pid, uint64_t *start_time, char *state);
/* Its parent's pid (field 4) and its own start time. */
int proc_parent(pid_t pid, pid_t *ppid, uint64_t *start_time);

int pidfd_open_(pid_t pid);
int pidfd_send_signal_(int pidfd, int sig);

/* One message of LEN bytes (at least one) on the unix socket SOCK with
 * FD attached (SCM_RIGHTS), without SIGPIPE; -1 with errno set. */
int send_with_fd(int sock, const void *buf, size_t len, int fd);

/* One message of at most LEN bytes and the descriptor it carries, made
 * close-on-exec (*fd is -1 when none came): the bytes read, 0 at EOF, -1
 * with errno set. */
ssize_t recv_with_fd(int sock, void *buf, size_t len, int *fd);

/* In a file of colon-separated lines (passwd(5), group(5)): field `want`
 * (from 0) of the first line whose field `key` is exactly `value`, into
 * buf; false if there is none or it does not fit.  Read as a file, never
 * through NSS: corral is static and loads no NSS module (Makefile), and
 * the host's own users and groups are in the files. */
bool colon_file_lookup(const char *file, int key, const char *value, int want,
		       char *buf, size_t len);

/* The same in an open file, read from its start (f NULL: false), for
 * several lookups in one file opened once. */
bool colon_stream_lookup(FILE *f, int key, const char *value, int want,
			 char *buf, size_t len);

/* The current time as RFC 3339 with nanoseconds, UTC. */
void now_rfc3339(char *buf, size_t len);

/* Open PATH inside the tree at rootfd, resolving symlinks as if rootfd
 * were "/" (openat2 RESOLVE_IN_ROOT, no magic links). */
int open_in_root(int rootfd, const char *path, int flags, struct error **err);
/* The same, failing on any symbolic link on the way. */
int open_in_root_nolinks(int rootfd, const char *path, int flags,
			 struct error **err);

/* Create PATH (and its parents) inside the tree at rootfd as a directory
 * or, with `file`, as an empty regular file; existing entries are kept. */
int mkdir_in_root(int rootfd, const char *path, bool file, struct error **err);
/* open_in_root (or, with `nolinks`, open_in_root_nolinks) of PATH, made
 * first with mkdir_in_root only when it is missing: one walk when it
 * exists, as it mostly does. */
int open_made_in_root(int rootfd, const char *path, bool file, int flags,
		      bool nolinks, struct error **err);

/* "/proc/self/fd/N" for mount(2) on an fd-resolved target. */
#define FD_PATH_MAX 32
void fd_path(int fd, char buf[FD_PATH_MAX]);

/* The absolute path of what FD has open, as the kernel names it (no
 * link in it; one readlink, where realpath(3) reads one per component),
 * malloc'd; NULL with errno set on failure. */
char *fd_real_path(int fd);

/* Make fds 3 .. 3+keep-1 all open (gaps filled with /dev/null), so that no
 * fd the runtime opens afterwards lands in the range handed to the
 * container's process (--preserve-fds, LISTEN_FDS). */
int reserve_fds(int keep, struct error **err);

/* --pid-file: the pid as bare digits, written to a temporary name and
 * renamed, so an engine never reads a partial file. */
int write_pid_file(const char *path, pid_t pid, struct error **err);

/* A memfd (O_CLOEXEC) holding `data`, sealed against every change;
 * `exec`: made to be executed (MFD_EXEC where the kernel has it): the
 * stage's image and parameters, the egress connections' program. */
int sealed_memfd(const char *name, const void *data, size_t len, bool exec,
		 struct error **err);

#endif
