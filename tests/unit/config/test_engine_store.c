/* Unit tests of spec/config/engine_store.c: containers-storage's list of
 * containers ties a root layer to a container ID, and only
 * overlay/LAYER/merged of that layer is its root; a list that does not
 * parse, or a container without a layer, ties nothing. */
#include <stdlib.h>
#include <string.h>

#include "engine_store.h"
#include "unit.h"
#include "util.h"

static const char list[] =
    "[{\"id\": \"aaa\", \"names\": [\"web\"], \"layer\": \"L1\"},"
    " {\"id\": \"bbb\", \"layer\": \"L2\", \"metadata\": \"{}\"},"
    " {\"id\": \"ccc\"}, {\"id\": \"ddd\", \"layer\": \"../etc\"}]";

static char *layer_of(const char *json, const char *id, int *r)
{
	_cleanup_error_ struct error *e = NULL;
	char *layer = NULL;

	*r = engine_store_layer(json, strlen(json), id, &layer, &e);
	return layer;
}

TEST(the_list_gives_each_container_its_layer)
{
	int r;
	char *l = layer_of(list, "aaa", &r);

	CHECK(r == 0 && l && !strcmp(l, "L1"));
	free(l);
	l = layer_of(list, "bbb", &r);
	CHECK(r == 0 && l && !strcmp(l, "L2"));
	free(l);
	/* not listed, no layer, a layer that is a path: nothing */
	CHECK(!layer_of(list, "zzz", &r) && r == 0);
	CHECK(!layer_of(list, "ccc", &r) && r == 0);
	CHECK(!layer_of(list, "ddd", &r) && r == 0);
	/* an ID is compared whole */
	CHECK(!layer_of(list, "aa", &r) && r == 0);
}

TEST(a_list_that_does_not_parse_is_an_error)
{
	int r;

	CHECK(!layer_of("{\"id\"", "aaa", &r) && r < 0);
	CHECK(!layer_of("{\"id\": \"aaa\"}", "aaa", &r) && r < 0);
	CHECK(!layer_of("[\"aaa\"]", "aaa", &r) && r < 0);
}

TEST(only_a_layers_own_directory_is_its_root)
{
	CHECK(engine_store_is_root("overlay/L1/merged", "L1"));
	CHECK(!engine_store_is_root("overlay/L1", "L1"));
	CHECK(!engine_store_is_root("overlay/L1/merged/x", "L1"));
	CHECK(!engine_store_is_root("overlay/L12/merged", "L1"));
	CHECK(!engine_store_is_root("overlay/L2/merged", "L1"));
	CHECK(engine_store_is_root("vfs/dir/L1", "L1"));
	CHECK(!engine_store_is_root("vfs/dir/L1/x", "L1"));
	CHECK(!engine_store_is_root("vfs/dir/L12", "L1"));
	CHECK(!engine_store_is_root("vfs/L1", "L1"));
	CHECK(!engine_store_is_root("overlay/L1/merged", ""));
	CHECK(!engine_store_is_root("vfs/dir/", ""));
	CHECK_STR(engine_store_list("overlay/L1/merged"),
		  "overlay-containers/containers.json");
	CHECK_STR(engine_store_list("vfs/dir/L1"),
		  "vfs-containers/containers.json");
	CHECK(engine_store_list("btrfs/subvolumes/L1") == NULL);
	CHECK(engine_store_list("overlay-containers/x") == NULL);
	CHECK(!engine_store_is_root("x/overlay/L1/merged", "L1"));
}

int main(void)
{
	return unit_run();
}
