/* Where the container's first processes may run while they start
 * (cpus.h). */
#include "cpus.h"

#include <errno.h>

bool cpus_save(cpu_set_t *cpus)
{
	CPU_ZERO(cpus);
	return sched_getaffinity(0, sizeof(*cpus), cpus) == 0;
}

void cpus_away(pid_t pid, const cpu_set_t *cpus)
{
	cpu_set_t away = *cpus;
	int here = sched_getcpu();

	if (CPU_COUNT(&away) < 2 || here < 0 || here >= CPU_SETSIZE ||
	    !CPU_ISSET(here, &away))
		return;
	CPU_CLR(here, &away);
	(void)sched_setaffinity(pid, sizeof(away), &away);
}

int cpus_restore(const cpu_set_t *cpus)
{
	/* EINVAL: none of create's CPUs is in the cgroup's cpuset, which
	 * then decides alone, as it would have for create itself. */
	if (sched_setaffinity(0, sizeof(*cpus), cpus) < 0 && errno != EINVAL)
		return -1;
	return 0;
}
