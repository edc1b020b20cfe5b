/* The config.json model: typed C structs for the OCI runtime-spec 1.2 fields
 * that podman, containerd (runc.v2 and CRI) and `runc spec` emit on Linux.
 *
 * Invariants:
 * - Every string is heap-allocated and owned by the struct that holds it;
 *   spec_free() releases the whole tree.  An absent optional string is NULL.
 * - String lists are NULL-terminated arrays with their length beside them
 *   (`char **args; size_t n_args;`); an absent list is NULL with n == 0.
 * - Optional numbers are `struct spec_opt`: .set says whether config.json
 *   had the field.
 * - Nothing here makes a system call: spec/ is pure so it can be unit-tested
 *   and fuzzed without privileges.
 */
#ifndef CORRAL_SPEC_H
#define CORRAL_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define SPEC_OCI_VERSION "1.2.0"

/* The CFS period (µs) the kernel uses when none is set. */
#define SPEC_CPU_PERIOD 100000

struct spec_opt {
	bool set;
	int64_t v;
};

struct spec_kv {
	char *key;
	char *value;
};

struct spec_user {
	uint32_t uid;
	uint32_t gid;
	struct spec_opt umask;
	uint32_t *additional_gids;
	size_t n_additional_gids;
};

struct spec_caps {
	char **bounding;
	size_t n_bounding;
	char **effective;
	size_t n_effective;
	char **inheritable;
	size_t n_inheritable;
	char **permitted;
	size_t n_permitted;
	char **ambient;
	size_t n_ambient;
};

struct spec_rlimit {
	char *type;   /* "RLIMIT_NOFILE" */
	int resource; /* RLIMIT_* number, resolved by the parser */
	uint64_t hard;
	uint64_t soft;
};

struct spec_process {
	bool terminal;
	bool has_console_size;
	uint32_t console_height;
	uint32_t console_width;
	struct spec_user user;
	char **args; /* required, at least one element */
	size_t n_args;
	char **env;
	size_t n_env;
	char *cwd;		/* required, absolute */
	struct spec_caps *caps; /* NULL when absent */
	struct spec_rlimit *rlimits;
	size_t n_rlimits;
	bool no_new_privileges;
	struct spec_opt oom_score_adj;
	char *apparmor_profile;
	char *selinux_label;
};

struct spec_root {
	char *path; /* required */
	bool readonly;
};

struct spec_mount {
	char *destination; /* required */
	char *type;
	char *source;
	char **options;
	size_t n_options;
};

struct spec_hook {
	char *path; /* required, absolute */
	char **args;
	size_t n_args;
	char **env;
	size_t n_env;
	struct spec_opt timeout; /* seconds, > 0 when set */
};

enum spec_hook_kind {
	HOOK_PRESTART,
	HOOK_CREATE_RUNTIME,
	HOOK_CREATE_CONTAINER,
	HOOK_START_CONTAINER,
	HOOK_POSTSTART,
	HOOK_POSTSTOP,
	HOOK_KIND_COUNT
};

/* The JSON key of each hook kind, indexed by enum spec_hook_kind. */
extern const char *const spec_hook_kind_names[HOOK_KIND_COUNT];

struct spec_hook_list {
	struct spec_hook *hooks;
	size_t n;
};

enum spec_ns_type {
	NS_PID,
	NS_NETWORK,
	NS_MOUNT,
	NS_IPC,
	NS_UTS,
	NS_USER,
	NS_CGROUP,
	NS_TIME,
	NS_TYPE_COUNT
};

/* The JSON name of each namespace type ("pid", "network", ...). */
extern const char *const spec_ns_type_names[NS_TYPE_COUNT];

struct spec_namespace {
	enum spec_ns_type type;
	char *path; /* NULL: create a new one */
};

struct spec_id_mapping {
	uint32_t container_id;
	uint32_t host_id;
	uint32_t size;
};

struct spec_device {
	char *path; /* required, absolute */
	char type;  /* 'c', 'b', 'u' or 'p' */
	int64_t major;
	int64_t minor;
	struct spec_opt file_mode;
	struct spec_opt uid;
	struct spec_opt gid;
};

struct spec_device_rule {
	bool allow;
	char type;	       /* 'a', 'c' or 'b'; 'a' when absent */
	struct spec_opt major; /* unset: wildcard */
	struct spec_opt minor;
	char *access; /* "rwm" subset; NULL: all */
};

struct spec_memory {
	struct spec_opt limit;
	struct spec_opt reservation;
	struct spec_opt swap;
	struct spec_opt kernel;
	struct spec_opt kernel_tcp;
	struct spec_opt swappiness;
	bool has_disable_oom_killer;
	bool disable_oom_killer;
	bool has_use_hierarchy;
	bool use_hierarchy;
	bool has_check_before_update;
	bool check_before_update;
};

struct spec_cpu {
	struct spec_opt shares;
	struct spec_opt quota;
	struct spec_opt burst;
	struct spec_opt period;
	struct spec_opt realtime_runtime;
	struct spec_opt realtime_period;
	char *cpus;
	char *mems;
	struct spec_opt idle;
};

struct spec_weight_device {
	int64_t major;
	int64_t minor;
	struct spec_opt weight;
	struct spec_opt leaf_weight;
};

struct spec_throttle_device {
	int64_t major;
	int64_t minor;
	uint64_t rate;
};

struct spec_block_io {
	struct spec_opt weight;
	struct spec_opt leaf_weight;
	struct spec_weight_device *weight_devices;
	size_t n_weight_devices;
	/* read bps, write bps, read iops, write iops */
	struct spec_throttle_device *throttle[4];
	size_t n_throttle[4];
};

enum spec_throttle_kind {
	THROTTLE_READ_BPS,
	THROTTLE_WRITE_BPS,
	THROTTLE_READ_IOPS,
	THROTTLE_WRITE_IOPS,
};

struct spec_hugepage_limit {
	char *page_size; /* "2MB" */
	uint64_t limit;
};

/* net_prio.ifpriomap's line for one interface */
struct spec_net_priority {
	char *name; /* a network interface's name, checked as the kernel does */
	uint32_t priority;
};

struct spec_network {
	struct spec_opt class_id; /* net_cls.classid, a uint32 */
	struct spec_net_priority *priorities;
	size_t n_priorities;
};

struct spec_resources {
	struct spec_device_rule *devices;
	size_t n_devices;
	struct spec_memory *memory; /* NULL when absent */
	struct spec_cpu *cpu;
	struct spec_opt pids_limit; /* .pids.limit */
	struct spec_block_io *block_io;
	struct spec_hugepage_limit *hugepage_limits;
	size_t n_hugepage_limits;
	struct spec_network *network;
	struct spec_kv *unified;
	size_t n_unified;
};

struct spec_syscall_arg {
	uint32_t index;
	uint64_t value;
	uint64_t value_two;
	char *op; /* "SCMP_CMP_EQ", ... */
};

struct spec_syscall {
	char **names;
	size_t n_names;
	char *action; /* "SCMP_ACT_ALLOW", ... */
	struct spec_opt errno_ret;
	struct spec_syscall_arg *args;
	size_t n_args;
};

struct spec_seccomp {
	char *default_action; /* required */
	struct spec_opt default_errno_ret;
	char **architectures;
	size_t n_architectures;
	char **flags;
	size_t n_flags;
	char *listener_path;
	struct spec_syscall *syscalls;
	size_t n_syscalls;
};

struct spec_personality {
	char *domain; /* "LINUX" or "LINUX32" */
	char **flags;
	size_t n_flags;
};

struct spec_linux {
	struct spec_namespace *namespaces;
	size_t n_namespaces;
	struct spec_id_mapping *uid_mappings;
	size_t n_uid_mappings;
	struct spec_id_mapping *gid_mappings;
	size_t n_gid_mappings;
	struct spec_device *devices;
	size_t n_devices;
	char *cgroups_path;
	struct spec_resources *resources; /* NULL when absent */
	struct spec_kv *sysctl;
	size_t n_sysctl;
	struct spec_seccomp *seccomp; /* NULL when absent */
	char **masked_paths;
	size_t n_masked_paths;
	char **readonly_paths;
	size_t n_readonly_paths;
	char *rootfs_propagation;
	char *mount_label;
	struct spec_personality *personality; /* NULL when absent */
};

struct spec {
	char *oci_version;	      /* required */
	struct spec_process *process; /* NULL when absent */
	struct spec_root *root;	      /* NULL when absent */
	char *hostname;
	char *domainname;
	struct spec_mount *mounts;
	size_t n_mounts;
	struct spec_hook_list hooks[HOOK_KIND_COUNT];
	struct spec_kv *annotations;
	size_t n_annotations;
	struct spec_linux *linux_; /* NULL when absent */
};

/* Parse a config.json document.  Unknown fields are ignored; a wrong type or
 * a missing required field fails with a message that names the JSON path,
 * e.g. ".process.args[2]: expected a string" (the caller prefixes the file
 * name).  On success *out owns a new tree. */
int spec_parse(const char *json, size_t len, struct spec **out,
	       struct error **err);

/* Parse a process document as given to `exec --process`. */
int spec_parse_process(const char *json, size_t len, struct spec_process **out,
		       struct error **err);

/* Parse a LinuxResources object alone (`update --resources FILE`), with
 * the same rules as .linux.resources of config.json; errors name the path
 * from the object (".memory.limit: ..."). */
int spec_parse_resources(const char *json, size_t len,
			 struct spec_resources **out, struct error **err);

/* Serialise a spec as indented JSON (with a trailing newline).  *out is a
 * NUL-terminated heap string the caller frees. */
int spec_emit(const struct spec *spec, char **out, size_t *len,
	      struct error **err);

/* corral's default config.json (what `corral spec` writes). */
int spec_default(struct spec **out, struct error **err);
int spec_default_emit(char **out, struct error **err);

void spec_free(struct spec *spec);
void spec_process_free(struct spec_process *process);
void spec_resources_free(struct spec_resources *resources);
void spec_network_free(struct spec_network *network);

/* The capability names Linux knows ("CAP_CHOWN" ... "CAP_CHECKPOINT_RESTORE"),
 * shared by the features document and the policy's name check. */
#define SPEC_N_CAPABILITIES 41
extern const char *const spec_capability_names[SPEC_N_CAPABILITIES];

/* Resolve "RLIMIT_NOFILE" to its number; -1 when unknown. */
int spec_rlimit_from_name(const char *name);

/* Look up a namespace type by JSON name; -1 when unknown. */
int spec_ns_type_from_name(const char *name);

#endif
