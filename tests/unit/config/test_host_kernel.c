/* Unit tests of what corral says and decides about each kernel
 * difference (spec/config/host_kernel.h): the versions that decide,
 * and an unknown kernel taking the oldest path and saying nothing. */
#include "host_kernel.h"
#include "unit.h"

static struct host_kernel kernel(unsigned major, unsigned minor,
				 bool mount_setattr)
{
	struct host_kernel k = {.known = true,
				.major = major,
				.minor = minor,
				.mount_setattr = mount_setattr};

	snprintf(k.release, sizeof(k.release), "%u.%u.0", major, minor);
	return k;
}

/* facts' value for NAME, or NULL */
static const char *fact(const struct host_kernel *k, const char *name)
{
	static struct host_kernel_fact f[HOST_KERNEL_N_FACTS];
	unsigned n = host_kernel_facts(k, f);

	for (unsigned i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return f[i].what;
	return NULL;
}

TEST(versions_compare_by_major_then_minor)
{
	struct host_kernel k = kernel(6, 1, true);

	CHECK(host_kernel_at_least(&k, 6, 1));
	CHECK(host_kernel_at_least(&k, 5, 19));
	CHECK(!host_kernel_at_least(&k, 6, 2));
	k = kernel(10, 0, true);
	CHECK(host_kernel_at_least(&k, 6, 15));
	k = kernel(6, 15, true);
	CHECK(host_kernel_overlay_takes_detached(&k));
	k = kernel(6, 14, true);
	CHECK(!host_kernel_overlay_takes_detached(&k));
}

TEST(an_unknown_kernel_takes_the_oldest_path_and_says_nothing)
{
	struct host_kernel k = {0};
	struct host_kernel_fact f[HOST_KERNEL_N_FACTS];

	CHECK(!host_kernel_at_least(&k, 0, 0));
	CHECK(!host_kernel_overlay_takes_detached(&k));
	CHECK(!host_kernel_idmaps_layers(&k));
	CHECK(host_kernel_facts(&k, f) == 0);
}

TEST(debian_11_5_10)
{
	struct host_kernel k = kernel(5, 10, false);

	CHECK_STR(fact(&k, "scratch"), "attached while made (before 6.15)");
	CHECK_STR(fact(&k, "binds"),
		  "restricted after attach (no mount_setattr)");
	CHECK_STR(fact(&k, "cpus"),
		  "taken back after the cgroup join (before 6.2)");
	CHECK(strncmp(fact(&k, "pool"), "refused (no mount_setattr", 25) == 0);
	CHECK(!host_kernel_idmaps_layers(&k));
}

TEST(between_5_12_and_5_19_the_subuid_pool_is_not_taken)
{
	struct host_kernel k = kernel(5, 15, true);

	CHECK_STR(fact(&k, "binds"),
		  "restricted before attach (mount_setattr)");
	CHECK(strncmp(fact(&k, "pool"), "/etc/subuid's range not taken", 29) ==
	      0);
	CHECK(!host_kernel_idmaps_layers(&k));
}

TEST(debian_12_6_1_and_13_6_12)
{
	struct host_kernel k = kernel(6, 1, true);

	CHECK_STR(fact(&k, "scratch"), "attached while made (before 6.15)");
	CHECK_STR(fact(&k, "cpus"),
		  "taken back after the cgroup join (before 6.2)");
	CHECK_STR(fact(&k, "pool"), "idmapped layers (mount_setattr)");
	CHECK(host_kernel_idmaps_layers(&k));
	k = kernel(6, 12, true);
	CHECK_STR(fact(&k, "scratch"), "attached while made (before 6.15)");
	CHECK_STR(fact(&k, "cpus"), "kept through the cgroup join (6.2+)");
}

TEST(from_6_15_the_scratch_is_made_detached)
{
	struct host_kernel k = kernel(6, 18, true);

	CHECK_STR(fact(&k, "scratch"), "made detached (6.15+)");
	CHECK_STR(fact(&k, "binds"),
		  "restricted before attach (mount_setattr)");
}

int main(void)
{
	return unit_run();
}
