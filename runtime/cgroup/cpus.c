/* Where the container's first processes may run while they start
 * (cpus.h). */
#include "cpus.h"

bool cpus_save(cpu_set_t *cpus)
{
	CPU_ZERO(cpus);
	return sched_getaffinity(0, sizeof(*cpus), cpus) == 0 &&
	       CPU_COUNT(cpus) > 1;
}

void cpus_away(pid_t pid, const cpu_set_t *cpus)
{
	cpu_set_t away = *cpus;
	int here = sched_getcpu();

	if (here < 0 || here >= CPU_SETSIZE || !CPU_ISSET(here, &away))
		return;
	CPU_CLR(here, &away);
	(void)sched_setaffinity(pid, sizeof(away), &away);
}

int cpus_restore(const cpu_set_t *cpus)
{
	return sched_setaffinity(0, sizeof(*cpus), cpus);
}
