/* Unit tests of spec/config/overlay_opts.c: an engine overlay's options from
 * /proc/self/mountinfo into its layers, the top first, and what cannot be
 * stacked again. */
#include <stdlib.h>
#include <string.h>

#include "overlay_opts.h"
#include "unit.h"
#include "util.h"

static void layers_are(const char *opts, const char *const *want, size_t n,
		       bool userxattr)
{
	struct overlay_opts o;
	struct error *err = NULL;

	CHECK(overlay_opts_parse(opts, 8, &o, &err) == 0);
	if (err) {
		printf("# %s\n", err->msg);
		error_free(err);
		return;
	}
	CHECK(o.n == n);
	for (size_t i = 0; i < n && i < o.n; i++)
		CHECK_STR(o.layers[i], want[i]);
	CHECK(o.userxattr == userxattr);
	overlay_opts_release(&o);
}

static void refused(const char *opts, const char *why)
{
	struct overlay_opts o;
	struct error *err = NULL;

	CHECK(overlay_opts_parse(opts, 8, &o, &err) < 0);
	CHECK(err && strstr(err->msg, why));
	CHECK(o.n == 0 && !o.layers);
	error_free(err);
}

TEST(containerd_options_give_the_upper_then_each_lower)
{
	const char *want[] = {"/s/3/fs", "/s/2/fs", "/s/1/fs"};

	layers_are("rw,lowerdir=/s/2/fs:/s/1/fs,upperdir=/s/3/fs,workdir=/s/3/"
		   "work,uuid=on",
		   want, 3, false);
}

TEST(no_upper_and_userxattr)
{
	const char *want[] = {"/a", "/b"};

	layers_are("ro,lowerdir=/a:/b,userxattr", want, 2, true);
}

TEST(octal_escapes_are_undone)
{
	const char *want[] = {"/my dir/x,y", "/b\\c"};

	layers_are("rw,lowerdir=/my\\040dir/x\\054y:/b\\134c", want, 2, false);
}

TEST(what_cannot_be_stacked_again_is_refused)
{
	refused("rw,upperdir=/u", "no lower layer");
	refused("rw,lowerdir=", "no lower layer");
	refused("rw,lowerdir=rel:/b", "not absolute");
	refused("rw,lowerdir=/a\\134:b", "a ':' inside");
	refused("rw,lowerdir=/a::/data", "data-only");
	refused("rw,lowerdir=/a,metacopy=on", "metacopy");
	refused("rw,lowerdir=/a,lowerdir+=/b", "one by one");
	refused("rw,lowerdir=/a\\000b", "not absolute");
	refused("rw,lowerdir=/1:/2:/3:/4:/5:/6:/7:/8:/9", "more than 8");
}

TEST(metacopy_off_and_other_options_pass)
{
	const char *want[] = {"/a"};

	layers_are(
	    "rw,lowerdir=/a,metacopy=off,redirect_dir=nofollow,index=off", want,
	    1, false);
}

int main(void)
{
	return unit_run();
}
