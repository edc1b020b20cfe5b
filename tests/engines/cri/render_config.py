#!/usr/bin/python3
"""Write a copy of config-examples/containerd/config.toml with some keys
set to this test's paths, and nothing else changed.

    render_config.py EXAMPLE OUTPUT KEY=VALUE...

KEY is a dotted TOML path, as in the example's header comment
(grpc.address, plugins."io.containerd.grpc.v1.cri".sandbox_image ...);
VALUE is a string.  Each KEY must already be in the example: a key the
example lost is an error, so the test notices when the example changes
shape.  The output is checked by parsing both files: they must differ in
exactly the given keys.
"""
import re
import sys
import tomllib

TABLE = re.compile(r'^\s*\[([^\[\]]+)\]\s*(#.*)?$')
ASSIGN = re.compile(r'^(\s*)([A-Za-z0-9_-]+)(\s*=\s*)"[^"]*"(\s*(#.*)?)$')


def split_key(dotted):
    """Split a dotted TOML key, keeping "quoted.parts" whole."""
    return tuple(p.strip('"') for p in re.findall(r'"[^"]*"|[^.]+', dotted))


def toml_string(value):
    return '"' + value.replace('\\', '\\\\').replace('"', '\\"') + '"'


def lookup(doc, path):
    for part in path:
        doc = doc[part]
    return doc


def render(text, wanted):
    table, out, done = (), [], set()
    for line in text.splitlines(keepends=True):
        m = TABLE.match(line)
        if m:
            table = split_key(m.group(1).strip())
            out.append(line)
            continue
        m = ASSIGN.match(line.rstrip('\n'))
        if m and table + (m.group(2),) in wanted:
            path = table + (m.group(2),)
            line = (m.group(1) + m.group(2) + m.group(3) +
                    toml_string(wanted[path]) + m.group(4) + '\n')
            done.add(path)
        out.append(line)
    missing = set(wanted) - done
    if missing:
        sys.exit('render_config: not in the example as a string: ' +
                 ', '.join('.'.join(p) for p in sorted(missing)))
    return ''.join(out)


def main():
    example, output, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
    wanted = {}
    for pair in pairs:
        key, _, value = pair.partition('=')
        wanted[split_key(key)] = value
    with open(example, encoding='utf-8') as f:
        text = f.read()
    rendered = render(text, wanted)
    before, after = tomllib.loads(text), tomllib.loads(rendered)
    for path, value in wanted.items():
        if lookup(after, path) != value:
            sys.exit('render_config: %s did not take' % '.'.join(path))
        # put the example's value back: then the two must be equal
        parent = lookup(after, path[:-1])
        parent[path[-1]] = lookup(before, path)
    if before != after:
        sys.exit('render_config: the output differs from the example '
                 'in more than the given keys')
    with open(output, 'w', encoding='utf-8') as f:
        f.write(rendered)


if __name__ == '__main__':
    main()
