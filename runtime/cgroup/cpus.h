/* Where the container's first process may run while it starts.
 *
 * A new process is often queued on its parent's CPU (10 of 16 forks traced
 * on the 2-vCPU test machine, the other CPU idle), and waits there while
 * the parent goes on: create's child sat idle while create made a v1
 * cgroup (about 1 ms) and wrote the state, the two sides meant to overlap.
 * So create records the CPUs it may use (cpus_save: false when more than
 * a cpu_set_t holds), lets the child run anywhere but on its own current
 * CPU right after the clone (cpus_away: with two CPUs or more; best
 * effort, an error changes nothing but the time), and sends GO after
 * that; the child takes the whole set back (cpus_restore, -1 and errno
 * on failure, which fails the create: the workload never runs on fewer
 * CPUs than create had) once it has heard GO and is in its cgroup,
 * before any code of the container's runs.
 *
 * The same restore keeps the set from growing: joining a cgroup whose
 * cpuset controller is enabled (cgroup v2 with cpuset on, or a v1 cpuset
 * hierarchy) sets the task's CPUs to the cpuset's, whatever its own were,
 * on kernels before 6.2 (which keep the CPUs a task asked for: "sched:
 * Always preserve the user requested cpumask"), and so on Debian 11's and
 * 12's.  A create run under `taskset -c 0` would otherwise start a
 * workload free to run on every CPU of the cpuset (tests/vm/kernel.bats).
 * Restored in the cpuset, the set is create's set within the cpuset's.  (The
 * supervisor's fork of the workload was tried the same way, with a byte over
 * the exec channel for GO: no difference measured, 200 paired runs.)
 */
#ifndef CORRAL_CPUS_H
#define CORRAL_CPUS_H

#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

bool cpus_save(cpu_set_t *cpus);
void cpus_away(pid_t pid, const cpu_set_t *cpus);
int cpus_restore(const cpu_set_t *cpus);

#endif
