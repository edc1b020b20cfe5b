/* What the policy file may name (policy_internal.h): environment,
 * syscall, sysctl and group names, capabilities and clean paths, checked
 * as the policy is read (policy_parse.c). */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "parse_internal.h"
#include "policy_internal.h"
#include "util.h"

bool policy_valid_env_name(const char *s)
{
	return s[0] != '\0' && !strchr(s, '=');
}

bool policy_valid_syscall_name(const char *s)
{
	return s[0] != '\0' &&
	       s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_")] == '\0';
}

/* "net.ipv4.ping_group_range", or a prefix "net.ipv4.*": dot-separated
 * non-empty words, "*" only as the whole last word. */
bool policy_valid_sysctl_name(const char *s)
{
	static const char word[] = "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";

	for (;;) {
		size_t n = strspn(s, word);

		if (n == 0)
			return s[0] == '*' && s[1] == '\0';
		if (s[n] == '\0')
			return true;
		if (s[n] != '.')
			return false;
		s += n + 1;
	}
}

/* A group name as the host's group database writes them, or a decimal
 * id. */
bool policy_valid_group(const char *s)
{
	static const char first[] = "abcdefghijklmnopqrstuvwxyz_";
	static const char rest[] = "abcdefghijklmnopqrstuvwxyz0123456789_-.";

	if (s[0] != '\0' && s[strspn(s, "0123456789")] == '\0')
		return strlen(s) <= 10;
	return s[0] != '\0' && strchr(first, s[0]) && strlen(s) <= 32 &&
	       s[strspn(s, rest)] == '\0';
}

/* Whether a capability name is known; the message says what is wrong. */
int policy_check_capability(const char *s, const struct jpath *p,
			    struct error **err)
{
	if (strncmp(s, "CAP_", 4) != 0)
		return json_fail_value(
		    p, err,
		    "expected a capability name like \"CAP_NET_BIND_SERVICE\","
		    " got",
		    s);
	/* every capability Linux knows: a misspelt name fails the policy
	 * instead of silently keeping nothing */
	for (size_t i = 0; i < SPEC_N_CAPABILITIES; i++)
		if (strcmp(spec_capability_names[i], s) == 0)
			return 0;
	return json_fail_value(p, err, "unknown capability", s);
}

/* An absolute path without ".", ".." or empty components and without a
 * trailing slash ("/" itself is clean): prefix matching on whole
 * components is only sound on such paths. */
int policy_check_clean_path(const char *s, const char *under,
			    const struct jpath *p, struct error **err)
{
	if (s[0] != '/')
		return json_fail(p, err, "must be an absolute path");
	if (under && strncmp(s, under, strlen(under)) != 0)
		return json_fail(p, err, "must be a path under %s", under);
	for (const char *c = s + 1;;) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return json_fail(p, err, "must not contain \"..\"");
		if ((n == 0 && s[1] != '\0') || (n == 1 && c[0] == '.'))
			return json_fail(p, err,
					 "must be a clean path (no \"//\", "
					 "\".\" or trailing \"/\")");
		if (c[n] == '\0')
			break;
		c += n + 1;
	}
	return 0;
}
