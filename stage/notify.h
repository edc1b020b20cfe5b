/* The listener of the workload's refused calls.  The workload's baseline
 * filter answers the always-denied calls (mount, bpf, keyctl, ptrace,
 * unshare ...) with SECCOMP_RET_USER_NOTIF; the workload hands the
 * listener fd to the supervisor before its exec (stage/workload.c), and
 * the supervisor answers every notification with EPERM, exactly what the
 * filter answered before, never "continue".  A dead listener fails
 * closed: the kernel answers ENOSYS.
 *
 * What it records, in a fixed table (memory stays flat whatever the
 * workload does): per syscall (architecture and number) a count, the
 * first time, the first pid as the supervisor sees it and that process's
 * comm.  Lines appended to the outcome record (spec/report/report.h):
 *
 *   syscall ARCH NR COUNT SEC NSEC PID COMM
 *
 * ARCH in hex (AUDIT_ARCH_*), COMM escaped (bytes outside [A-Za-z0-9._-]
 * as \xNN; "?" when unreadable).  One line at the first call of each
 * syscall, then the counts that changed at most once a second, within a
 * byte budget, and all of them at the end; the report takes the latest
 * line of each syscall.  The runtime names the numbers (libseccomp). */
#ifndef CORRAL_STAGE_NOTIFY_H
#define CORRAL_STAGE_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* More than the baseline's always-denied calls, the only ones notified. */
#define NOTIFY_TABLE 128
/* Bytes of count updates written before the end (first calls and the
 * final counts are written whatever this says). */
#define NOTIFY_UPDATE_BUDGET (256u << 10)

struct notify_entry {
	uint32_t arch;
	int32_t nr;
	uint64_t count;	  /* refused so far */
	uint64_t written; /* the count the record has */
	struct timespec first;
	int32_t pid;
	char comm[16 * 4 + 1];
};

struct notify_state {
	int listener;	/* -1: none, or gone */
	int outcome_fd; /* -1: count, write nothing */
	int proc_fd;	/* the container's /proc, opened before its code ran */
	struct notify_entry e[NOTIFY_TABLE];
	size_t n;
	uint64_t untracked;	    /* refused once the table was full */
	struct timespec last_flush; /* CLOCK_MONOTONIC */
	size_t update_bytes;
	bool dirty;
};

/* Also opens /proc (for the callers' comm), so call it before the
 * workload runs any code of the container's. */
void notify_init(struct notify_state *s, int listener, int outcome_fd);

/* Answer one notification (EPERM) and count it.  Returns -1 when the
 * listener is gone (every process under the filter has exited), after
 * closing it; 0 otherwise. */
int notify_serve(struct notify_state *s);

/* Close the listener (the workload and its children are gone). */
void notify_close(struct notify_state *s);

/* Milliseconds until the changed counts are due to be written, -1 when
 * none changed. */
int notify_due_ms(const struct notify_state *s);

/* Write the counts that changed: when due (at most once a second, within
 * the budget), or now when `final`. */
void notify_flush(struct notify_state *s, bool final);

#endif
