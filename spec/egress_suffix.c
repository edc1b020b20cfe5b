/* The multi-label public suffixes a policy's wildcard may not stand on
 * (`**.co.uk` would allow every British company, `*.github.io` every
 * GitHub user's pages).  Not the whole Public Suffix List: the ICANN
 * second-level suffixes in wide use and the shared hosting domains under
 * which anyone can get a name, which is what matters for egress: a
 * wildcard over one of them lets code reach a host its author
 * registered.  Single-label suffixes (com, org, dev ...) are refused by
 * egress_rule_parse() itself.  A name not listed here is not thereby
 * safe to wildcard; the list only catches the common mistakes. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"
#include "util.h"

/* Sorted, for bsearch; tests/unit/test_egress.c checks the order. */
static const char *const suffixes[] = {
    "ac.jp",
    "ac.uk",
    "amazonaws.com",
    "appspot.com",
    "azurewebsites.net",
    "blob.core.windows.net",
    "blogspot.com",
    "cloudfront.net",
    "co.in",
    "co.jp",
    "co.kr",
    "co.nz",
    "co.uk",
    "co.za",
    "com.ar",
    "com.au",
    "com.br",
    "com.cn",
    "com.hk",
    "com.mx",
    "com.sg",
    "com.tr",
    "com.tw",
    "compute.amazonaws.com",
    "edu.au",
    "firebaseapp.com",
    "github.io",
    "gitlab.io",
    "gov.uk",
    "herokuapp.com",
    "ne.jp",
    "net.au",
    "netlify.app",
    "ngrok.io",
    "or.jp",
    "org.au",
    "org.uk",
    "pages.dev",
    "r2.dev",
    "s3.amazonaws.com",
    "vercel.app",
    "web.app",
    "workers.dev",
};

static int compare(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

bool egress_public_suffix(const char *name)
{
	return bsearch(name, suffixes, ARRAY_SIZE(suffixes), sizeof(*suffixes),
		       compare) != NULL;
}

bool egress_public_suffix_sorted(void)
{
	for (size_t i = 1; i < ARRAY_SIZE(suffixes); i++)
		if (strcmp(suffixes[i - 1], suffixes[i]) >= 0)
			return false;
	return true;
}
