#include "json_tidy.h"

#include <stdbool.h>
#include <string.h>

#include "json.h"

void json_tidy(char *text)
{
	char *w = text;
	bool in_string = false;

	for (const char *r = text; *r; r++) {
		*w++ = *r;
		if (in_string) {
			if (*r == '\\' && r[1])
				*w++ = *++r;
			else if (*r == '"')
				in_string = false;
			continue;
		}
		if (*r == '"') {
			in_string = true;
		} else if (*r == '[' || *r == '{') {
			const char *close = r + 1 + strspn(r + 1, " \t\r\n");

			if (*close == (*r == '[' ? ']' : '}'))
				r = close - 1; /* the next round copies it */
		}
	}
	*w = '\0';
}

int json_tidy_finish(yajl_gen gen, char **out, struct error **err)
{
	if (json_gen_finish(gen, out, NULL, err) < 0)
		return -1;
	json_tidy(*out);
	return 0;
}
