/* Unit tests of runtime/base/sync.c: the create/child protocol's messages go
 * through one packet each, a payload survives whole up to the limit, an
 * error from the peer becomes the error (also when the peer left one of
 * ours unread), and a dead peer is an error. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync.h"
#include "unit.h"
#include "util.h"

TEST(a_message_and_its_payload)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *payload = NULL;
	enum sync_msg type;
	int fds[2];

	CHECK(sync_socketpair(fds, &err) == 0);
	CHECK(sync_send(fds[0], SYNC_GO, "{\"id\":\"x\"}", 10, &err) == 0);
	CHECK(sync_send(fds[0], SYNC_READY, NULL, 0, &err) == 0);
	CHECK(sync_recv(fds[1], &type, &payload, &err) == 0);
	CHECK(type == SYNC_GO);
	CHECK_STR(payload, "{\"id\":\"x\"}");
	CHECK(sync_expect(fds[1], SYNC_READY, NULL, &err) == 0);
	close(fds[0]);
	close(fds[1]);
}

TEST(an_error_from_the_peer_is_the_error)
{
	struct error *err = NULL;
	int fds[2];

	CHECK(sync_socketpair(fds, NULL) == 0);
	sync_send(fds[1], SYNC_ERROR, "mount /proc: Operation not permitted",
		  36, NULL);
	CHECK(sync_expect(fds[0], SYNC_READY, NULL, &err) < 0);
	CHECK(err &&
	      strcmp(err->msg, "mount /proc: Operation not permitted") == 0);
	error_free(err);
	close(fds[0]);
	close(fds[1]);
}

/* A child that fails before reading GO sends ERROR and exits with GO
 * unread: the kernel then fails the parent's next receive once with
 * ECONNRESET, ahead of the ERROR still queued. */
TEST(the_error_of_a_peer_gone_with_our_message_unread)
{
	struct error *err = NULL;
	int fds[2];

	CHECK(sync_socketpair(fds, NULL) == 0);
	CHECK(sync_send(fds[0], SYNC_GO, "{}", 2, NULL) == 0);
	sync_send(fds[1], SYNC_ERROR, "rootfsPropagation: unknown value", 32,
		  NULL);
	close(fds[1]);
	CHECK(sync_expect(fds[0], SYNC_READY, NULL, &err) < 0);
	CHECK(err && strcmp(err->msg, "rootfsPropagation: unknown value") == 0);
	error_free(err);
	close(fds[0]);
}

TEST(an_unexpected_message_and_a_dead_peer_fail)
{
	struct error *err = NULL;
	int fds[2];

	CHECK(sync_socketpair(fds, NULL) == 0);
	sync_send(fds[1], SYNC_HOOKS, NULL, 0, NULL);
	CHECK(sync_expect(fds[0], SYNC_READY, NULL, &err) < 0);
	CHECK(err && strstr(err->msg, "unexpected message"));
	error_free(err);
	err = NULL;
	close(fds[1]);
	CHECK(sync_expect(fds[0], SYNC_READY, NULL, &err) < 0);
	CHECK(err != NULL);
	error_free(err);
	close(fds[0]);
}

TEST(a_payload_is_cut_at_the_limit_not_split)
{
	size_t big = SYNC_MAX * 2;
	_cleanup_free_ char *data = malloc(big);
	_cleanup_free_ char *got = NULL;
	enum sync_msg type;
	int fds[2];

	if (!data)
		return;
	memset(data, 'a', big);
	CHECK(sync_socketpair(fds, NULL) == 0);
	CHECK(sync_send(fds[0], SYNC_GO, data, big, NULL) == 0);
	sync_send(fds[0], SYNC_READY, NULL, 0, NULL);
	CHECK(sync_recv(fds[1], &type, &got, NULL) == 0 && type == SYNC_GO);
	CHECK(got && strlen(got) == SYNC_MAX - 1);
	CHECK(sync_expect(fds[1], SYNC_READY, NULL, NULL) == 0);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	return unit_run();
}
