/* `corral report`: what a container's code tried, as one struct that the
 * runtime fills from its per-container records (runtime/report/) and that
 * this module renders as text or JSON from the same data.  Pure: no system
 * calls, so the renderers and the parsers of the records (the supervisor's
 * outcome lines, the egress proxy's log) are unit-tested and fuzzable.
 *
 * Every datum has a "known" flag: a counter corral could not read is said
 * to be unknown, never printed as 0.  Names that came from the workload
 * (file names, host names in the egress log) are escaped on the way in
 * (report_escape), so neither renderer ever prints a raw byte of theirs.
 */
#ifndef CORRAL_REPORT_H
#define CORRAL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The list of files changed keeps this many, largest first. */
#define REPORT_FILES_SHOWN 100
/* The egress section lists this many denied names. */
#define REPORT_DENIED_SHOWN 50
/* The drops "changed by the sandbox" lists, in the order harden() made
 * them. */
#define REPORT_DROPS_SHOWN 100

/* Distinct refused syscalls kept from the record (the supervisor's table
 * is smaller), and listed, largest count first. */
#define REPORT_SYSCALLS_MAX 256
#define REPORT_SYSCALLS_SHOWN 50

enum report_change {
	REPORT_CREATED,
	REPORT_MODIFIED,
	REPORT_DELETED,
};

struct report_file {
	char *name; /* escaped, "/etc/x" */
	enum report_change change;
	bool dir;
	uint64_t size;
	bool in_bind; /* in a writable bind, found by its times */
	/* a file of several names (report_add_linked): its inode, and how
	 * many names of it were found after this one */
	bool linked;
	uint64_t dev, ino;
	uint64_t more_names;
};

/* The inodes of several names seen so far (report.c). */
struct report_inodes;

/* A writable bind of the container's (an rw entry of the policy's mounts,
 * a pod's emptyDir): what the workload wrote there is not in the upper
 * layer, so its files are found by their times instead. */
struct report_bind {
	char *path;	 /* the destination, escaped */
	const char *why; /* NULL: walked; else why not (static) */
};

struct spec_mount;

/* Whether m, a mount of the effective spec, is a bind the container may
 * write (a bind without ro); false when its options do not parse. */
bool report_rw_bind(const struct spec_mount *m);

/* One syscall the baseline refused, from the supervisor's record. */
struct report_syscall {
	uint32_t arch; /* AUDIT_ARCH_* */
	int nr;
	char *name; /* set by the runtime (libseccomp); NULL: unknown */
	uint64_t count;
	int64_t first_sec; /* realtime */
	long first_nsec;
	int pid;    /* the first caller, in the container's pid namespace */
	char *comm; /* its comm, escaped; "?" when unknown */
};

/* Something config.json asked for that the container runs without, as
 * create recorded it (sandbox.json's changes marked "dropped"): each
 * string escaped (report_escape). */
struct report_drop {
	char *field, *asked, *applied, *reason;
};

struct report_counter {
	bool known;
	uint64_t value;
};

/* A time as the realtime clock's seconds and nanoseconds. */
struct report_time {
	bool known;
	int64_t sec;
	long nsec;
};

struct report {
	char *id;
	const char *status; /* "created", "running", "stopped" ... (static) */
	/* outcome: the supervisor's record (report_parse_outcome) */
	struct report_time started, ended;
	bool ended_known;
	bool signalled; /* the workload died of `code`, else exited `code` */
	int code;
	bool by_wall_clock; /* the supervisor's deadline fired */
	int kill_signal;    /* the last `corral kill`/delete signal; 0: none */
	struct report_counter cpu_ns, memory_peak;
	/* limits hit */
	struct report_counter oom_kills, pids_refused, pids_max;
	struct report_counter throttled_periods, throttled_ns;
	uint64_t wall_clock; /* the limit in seconds; 0: none */
	struct report_counter scratch_used, scratch_size;
	/* files changed, from the scratch overlay's upper layer */
	bool files_known;
	const char *files_why; /* why unknown (static) */
	struct report_file *files;
	size_t n_files;		/* kept: at most REPORT_FILES_SHOWN */
	uint64_t n_files_total; /* found, kept or not: inodes, not names */
	uint64_t files_bytes;	/* their sizes added up, each inode once */
	uint64_t more_names;	/* names of a file counted already */
	struct report_inodes *inodes;
	bool files_truncated;	   /* the walk stopped at its bounds */
	struct report_bind *binds; /* the writable binds looked at */
	size_t n_binds;
	/* network: the egress helper's counters (egress_counts.h), when it
	 * had them, and the denied names of its log */
	bool egress_known;
	uint64_t egress_allowed, egress_denied, egress_bad_lines;
	uint64_t egress_dropped;      /* log lines not written: budgets */
	uint64_t egress_lookups;      /* names asked of the resolver */
	uint64_t egress_cache_hits;   /* answered from the cache */
	uint64_t egress_rate_refused; /* lookups refused for rate */
	char **denied;		      /* escaped "name:port (reason)" */
	size_t n_denied;
	/* changed by the sandbox: the drops create recorded, when its
	 * record could be read */
	bool drops_known;
	struct report_drop *drops;
	size_t n_drops;		/* kept: at most REPORT_DROPS_SHOWN */
	uint64_t n_drops_total; /* recorded, kept or not */
	/* syscalls refused: the supervisor's listener, when it had one */
	bool syscalls_known;
	struct report_syscall *syscalls; /* largest count first once sorted */
	size_t n_syscalls;
	uint64_t syscalls_total; /* refused calls, all syscalls */
	bool syscalls_truncated; /* more than REPORT_SYSCALLS_MAX */
};

/* Why the container ended, from the record and the counters: "running",
 * "wall clock", "OOM kill", "corral kill", "workload exit", "workload
 * killed by a signal", "OOM kill (record incomplete)" or "record
 * incomplete" (it started and its end was never recorded), or
 * "unknown". */
const char *report_reason(const struct report *r);

/* Escape bytes a person or a terminal should not get raw: controls,
 * DEL, backslash, quotes and every byte >= 0x80 become \xNN (or \\);
 * NULL when out of memory. */
char *report_escape(const char *s, size_t len);

/* The supervisor's and corral kill's lines in ROOT/ID/outcome:
 *   start SEC NSEC
 *   listening
 *   syscall ARCH NR COUNT SEC NSEC PID COMM
 *   end SEC NSEC exit|signal N workload|wall_clock
 *   kill SIG
 * "listening": the supervisor serves the workload's seccomp listener, so
 * the refused syscalls are known (none until a syscall line).  syscall
 * (stage/notify.h): ARCH in hex, COMM escaped; a later line of the same
 * ARCH and NR carries its newer count.  A line that does not parse is
 * skipped (the file is corral's own, but a partial write must not fail
 * the report); -1 only when out of memory. */
int report_parse_outcome(const char *buf, size_t len, struct report *r,
			 struct error **err);

/* Sort the refused syscalls, largest count first, numbers breaking ties;
 * after the runtime has named them. */
void report_sort_syscalls(struct report *r);

/* The egress proxy's log: one JSON object per line with "verdict"
 * ("allow" or "deny"), "name", "port" and "reason".  Keeps the first
 * REPORT_DENIED_SHOWN denied names; counts nothing (the counts are the
 * counters', report_parse_egress_counts: a log is bounded and may have
 * dropped lines).  A line saying a share of the log was spent ("dropped")
 * is passed over. */
int report_parse_egress(const char *buf, size_t len, struct report *r,
			struct error **err);

/* sandbox.json, which create wrote: its "changes" marked "dropped"
 * (struct harden_change) are the report's "changed by the sandbox".  A
 * record that does not parse leaves drops_known false; -1 only when out
 * of memory. */
int report_parse_changes(const char *buf, size_t len, struct report *r,
			 struct error **err);

/* The egress helper's counters' record (struct egress_counts, as the
 * file holds it): the verdicts, the dropped lines and the resolver's
 * numbers.  Nothing, and egress_known false, when it is not one. */
void report_parse_egress_counts(const void *buf, size_t len, struct report *r);

/* What the scratch's upper layer held when create was done (READY),
 * before any code of the container's ran: the mount points corral made
 * (an image without /proc, /dev or /etc/resolv.conf gets them there).
 * The files changed leave out an entry that is still the one recorded:
 * the same path and inode, and for anything but a directory the same
 * size, mtime and ctime.  A tmpfs gives an inode number once (until 2^32
 * files later), so a name the workload removed and made again is
 * listed; times alone (the kernel's coarse clock) could not tell a file
 * written in the same tick as READY from corral's own. */
#define REPORT_READY_MAX 4096

struct report_ready_entry {
	uint64_t ino;
	bool dir;
	uint64_t size;
	int64_t mtime_sec, ctime_sec;
	long mtime_nsec, ctime_nsec;
	char *path; /* escaped (report_escape) in the record */
};

struct report_ready {
	struct report_ready_entry *v; /* sorted by ino */
	size_t n;
};

/* The record's line of e, "INO d PATH" or "INO f SIZE MSEC MNSEC CSEC
 * CNSEC PATH" (PATH escaped, the rest of the line), newline included;
 * NULL when out of memory. */
char *report_ready_line(const struct report_ready_entry *e);

/* The record back; a line that does not parse, or one beyond
 * REPORT_READY_MAX, is left out (then its entry is listed: a damaged
 * record never hides a file).  -1 only when out of memory. */
int report_ready_parse(const char *buf, size_t len, struct report_ready *out,
		       struct error **err);

/* Whether e (its path as found, not escaped) is an entry of the record,
 * unchanged. */
bool report_ready_holds(const struct report_ready *rd,
			const struct report_ready_entry *e);

void report_ready_release(struct report_ready *rd);

/* Keep a file found in the upper layer: the largest REPORT_FILES_SHOWN are
 * kept; `name` is escaped here. */
int report_add_file(struct report *r, const char *name, enum report_change c,
		    bool dir, uint64_t size, struct error **err);

/* A file of more than one name (st_nlink > 1; never a directory, nor a
 * whiteout, whose inode overlayfs shares among deletions): the first name
 * found of inode (dev, ino) is kept and counted as report_add_file does;
 * each later one adds only to that file's more_names and r->more_names,
 * never to the count or the bytes, and never takes a place in the list.
 * A file is its inode: 2000 links to one 30 MiB file are 30 MiB. */
int report_add_linked(struct report *r, const char *name, enum report_change c,
		      uint64_t size, bool in_bind, uint64_t dev, uint64_t ino,
		      struct error **err);

/* The same for a file of a writable bind (in_bind set). */
int report_add_bind_file(struct report *r, const char *name,
			 enum report_change c, bool dir, uint64_t size,
			 struct error **err);

/* Note a writable bind at destination `path` (escaped here); why: NULL
 * when its tree was walked. */
int report_add_bind(struct report *r, const char *path, const char *why,
		    struct error **err);

/* Sort the kept files, largest first, names breaking ties. */
void report_sort_files(struct report *r);

int report_text(const struct report *r, char **out, struct error **err);
int report_json(const struct report *r, char **out, struct error **err);

void report_release(struct report *r);

#endif
