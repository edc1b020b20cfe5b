#!/usr/bin/python3
"""A minimal CRI client that drives containerd as a kubelet would.

    cri_client.py --socket SOCK --pb-dir DIR COMMAND [ARGS...]

DIR holds cri_pb2.py, which the test generates from cri.proto with
`protoc --python_out`.  Each call goes through grpcio's generic
channel.unary_unary on its method path; nothing here is a generated stub.
The pod and the container are built from the Kubernetes manifests in
config-examples/kubernetes (pod.yaml, runtimeclass.yaml), so the examples
are what the test runs.

Commands (IDs are printed on stdout, one per line):
  version
  image-status IMAGE                     the image's id; exit 1 when absent
  run-pod --pod-yaml F --runtimeclass F --log-dir D --save-config OUT
          [--uid U] [--cgroup-parent P] [--annotation K=V]...
  create --pod-id ID --pod-config OUT --pod-yaml F
          [--container NAME] [--attempt N] [--annotation K=V]...
  start ID | stop ID [--timeout S] | remove ID
  status ID                              JSON: state, exit_code, pid ...
  exec ID [--timeout S] -- CMD...        the command's stdout, stderr and
                                         exit code become this process's
  pod-status ID                          JSON: state, ip, runtime_handler
  stop-pod ID | remove-pod ID
  list-pods                              every pod's id

A failed call prints "cri_client: METHOD: CODE: DETAILS" on stderr and
exits 2.
"""
import argparse
import json
import os
import sys
import uuid

import grpc
import yaml

RUNTIME = '/runtime.v1.RuntimeService/'
IMAGE = '/runtime.v1.ImageService/'
# CreateContainer and StartContainer wait for snapshots and the shim; the
# rest answer at once.  The test's own waits stay below these.
TIMEOUT = 60

pb = None  # cri_pb2, imported from --pb-dir


class CallFailed(Exception):
    pass


def call(channel, service, method, request, reply_type, timeout=TIMEOUT):
    rpc = channel.unary_unary(
        service + method,
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=reply_type.FromString)
    try:
        return rpc(request, timeout=timeout)
    except grpc.RpcError as e:
        raise CallFailed('%s: %s: %s' % (method, e.code().name,
                                         e.details())) from None


def load_yaml(path):
    with open(path, encoding='utf-8') as f:
        return yaml.safe_load(f)


def annotations_from(pairs):
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition('=')
        if not sep:
            sys.exit('cri_client: --annotation %s: expected KEY=VALUE' % pair)
        out[key] = value
    return out


def pick_container(pod, name):
    containers = pod['spec']['containers']
    for c in containers:
        if name is None or c['name'] == name:
            return c
    sys.exit('cri_client: pod.yaml has no container %s' % name)


def cmd_version(ch, args):
    r = call(ch, RUNTIME, 'Version', pb.VersionRequest(version='v1'),
             pb.VersionResponse)
    print(r.runtime_name, r.runtime_version, r.runtime_api_version)


def cmd_image_status(ch, args):
    r = call(ch, IMAGE, 'ImageStatus',
             pb.ImageStatusRequest(image=pb.ImageSpec(image=args.image)),
             pb.ImageStatusResponse)
    if not r.image.id:
        print('cri_client: image %s is not there' % args.image,
              file=sys.stderr)
        return 1
    print(r.image.id)
    return 0


def cmd_run_pod(ch, args):
    """The PodSandboxConfig a kubelet builds from pod.yaml."""
    pod = load_yaml(args.pod_yaml)
    rc = load_yaml(args.runtimeclass)
    # the kubelet resolves the pod's runtimeClassName to the handler of
    # the RuntimeClass of that name
    if (rc.get('apiVersion'), rc.get('kind')) != ('node.k8s.io/v1',
                                                  'RuntimeClass'):
        sys.exit('cri_client: %s is not a node.k8s.io/v1 RuntimeClass' %
                 args.runtimeclass)
    if pod['spec'].get('runtimeClassName') != rc['metadata']['name']:
        sys.exit('cri_client: pod.yaml asks for RuntimeClass %r, %s is %r' %
                 (pod['spec'].get('runtimeClassName'), args.runtimeclass,
                  rc['metadata']['name']))
    handler = rc['handler']
    meta = pod['metadata']
    annotations = dict(meta.get('annotations') or {})
    annotations.update(annotations_from(args.annotation))
    # The kubelet gives v1 pods a pid namespace per container.
    ns = pb.NamespaceOption(pid=pb.CONTAINER)
    # and hands the pod's sysctls to its sandbox
    psc = (pod.get('spec') or {}).get('securityContext') or {}
    sysctls = {str(s['name']): str(s['value'])
               for s in psc.get('sysctls') or []}
    config = pb.PodSandboxConfig(
        metadata=pb.PodSandboxMetadata(
            name=meta['name'], namespace=meta.get('namespace', 'default'),
            uid=args.uid or str(uuid.uuid4()), attempt=0),
        hostname=meta['name'],
        log_directory=args.log_dir,
        labels={str(k): str(v) for k, v in
                (meta.get('labels') or {}).items()},
        annotations={str(k): str(v) for k, v in annotations.items()},
        linux=pb.LinuxPodSandboxConfig(
            cgroup_parent=args.cgroup_parent or '',
            security_context=pb.LinuxSandboxSecurityContext(
                namespace_options=ns),
            sysctls=sysctls))
    with open(args.save_config, 'wb') as f:
        f.write(config.SerializeToString())
    r = call(ch, RUNTIME, 'RunPodSandbox',
             pb.RunPodSandboxRequest(config=config, runtime_handler=handler),
             pb.RunPodSandboxResponse)
    print(r.pod_sandbox_id)


def mount_from(text):
    """HOST:CONTAINER[:ro], a volume as the kubelet hands it over."""
    parts = text.split(':')
    if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != 'ro'):
        sys.exit('cri_client: --mount HOST:CONTAINER[:ro], got %r' % text)
    return pb.Mount(host_path=parts[0], container_path=parts[1],
                    readonly=len(parts) == 3)


def cmd_create(ch, args):
    """The ContainerConfig a kubelet builds from one of pod.yaml's
    containers."""
    pod = load_yaml(args.pod_yaml)
    c = pick_container(pod, args.container)
    with open(args.pod_config, 'rb') as f:
        sandbox = pb.PodSandboxConfig.FromString(f.read())
    # the kubelet hands the pod's supplementalGroups and fsGroup to each
    # container's security context
    psc = (pod.get('spec') or {}).get('securityContext') or {}
    groups = [int(g) for g in psc.get('supplementalGroups') or []]
    if 'fsGroup' in psc:
        groups.append(int(psc['fsGroup']))
    config = pb.ContainerConfig(
        metadata=pb.ContainerMetadata(name=c['name'], attempt=args.attempt),
        image=pb.ImageSpec(image=c['image']),
        command=[str(a) for a in c.get('command') or []],
        args=[str(a) for a in c.get('args') or []],
        working_dir=c.get('workingDir', ''),
        envs=[pb.KeyValue(key=e['name'], value=str(e.get('value', '')))
              for e in c.get('env') or []],
        annotations=annotations_from(args.annotation),
        mounts=[mount_from(m) for m in args.mount or []],
        log_path='%s/%d.log' % (c['name'], args.attempt),
        linux=pb.LinuxContainerConfig(
            security_context=pb.LinuxContainerSecurityContext(
                namespace_options=pb.NamespaceOption(pid=pb.CONTAINER),
                supplemental_groups=groups)))
    r = call(ch, RUNTIME, 'CreateContainer',
             pb.CreateContainerRequest(pod_sandbox_id=args.pod_id,
                                       config=config,
                                       sandbox_config=sandbox),
             pb.CreateContainerResponse)
    print(r.container_id)


def cmd_start(ch, args):
    call(ch, RUNTIME, 'StartContainer',
         pb.StartContainerRequest(container_id=args.id),
         pb.StartContainerResponse)


def cmd_stop(ch, args):
    call(ch, RUNTIME, 'StopContainer',
         pb.StopContainerRequest(container_id=args.id, timeout=args.timeout),
         pb.StopContainerResponse, timeout=TIMEOUT + args.timeout)


def cmd_remove(ch, args):
    call(ch, RUNTIME, 'RemoveContainer',
         pb.RemoveContainerRequest(container_id=args.id),
         pb.RemoveContainerResponse)


def cmd_status(ch, args):
    r = call(ch, RUNTIME, 'ContainerStatus',
             pb.ContainerStatusRequest(container_id=args.id, verbose=True),
             pb.ContainerStatusResponse)
    s = r.status
    # containerd's verbose info: a JSON object with the task's host pid
    info = json.loads(r.info.get('info', '{}') or '{}')
    print(json.dumps({
        'id': s.id,
        'name': s.metadata.name,
        'state': pb.ContainerState.Name(s.state),
        'exit_code': s.exit_code,
        'started_at': s.started_at,
        'finished_at': s.finished_at,
        'reason': s.reason,
        'message': s.message,
        'log_path': s.log_path,
        'annotations': dict(s.annotations),
        'pid': info.get('pid', 0),
    }))


def cmd_exec(ch, args):
    r = call(ch, RUNTIME, 'ExecSync',
             pb.ExecSyncRequest(container_id=args.id, cmd=args.cmd,
                                timeout=args.timeout),
             pb.ExecSyncResponse, timeout=TIMEOUT + args.timeout)
    sys.stdout.buffer.write(r.stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(r.stderr)
    sys.stderr.flush()
    return r.exit_code


def cmd_pod_status(ch, args):
    r = call(ch, RUNTIME, 'PodSandboxStatus',
             pb.PodSandboxStatusRequest(pod_sandbox_id=args.id),
             pb.PodSandboxStatusResponse)
    s = r.status
    print(json.dumps({
        'id': s.id,
        'state': pb.PodSandboxState.Name(s.state),
        'ip': s.network.ip,
        'runtime_handler': s.runtime_handler,
        'annotations': dict(s.annotations),
    }))


def cmd_stop_pod(ch, args):
    call(ch, RUNTIME, 'StopPodSandbox',
         pb.StopPodSandboxRequest(pod_sandbox_id=args.id),
         pb.StopPodSandboxResponse)


def cmd_remove_pod(ch, args):
    call(ch, RUNTIME, 'RemovePodSandbox',
         pb.RemovePodSandboxRequest(pod_sandbox_id=args.id),
         pb.RemovePodSandboxResponse)


def cmd_list_pods(ch, args):
    r = call(ch, RUNTIME, 'ListPodSandbox', pb.ListPodSandboxRequest(),
             pb.ListPodSandboxResponse)
    for item in r.items:
        print(item.id)


def parser():
    p = argparse.ArgumentParser(prog='cri_client')
    p.add_argument('--socket', required=True)
    p.add_argument('--pb-dir', required=True)
    sub = p.add_subparsers(dest='command', required=True)

    sub.add_parser('version').set_defaults(fn=cmd_version)
    s = sub.add_parser('image-status')
    s.add_argument('image')
    s.set_defaults(fn=cmd_image_status)

    s = sub.add_parser('run-pod')
    s.add_argument('--pod-yaml', required=True)
    s.add_argument('--runtimeclass', required=True)
    s.add_argument('--log-dir', required=True)
    s.add_argument('--save-config', required=True)
    s.add_argument('--uid')
    s.add_argument('--cgroup-parent')
    s.add_argument('--annotation', action='append')
    s.set_defaults(fn=cmd_run_pod)

    s = sub.add_parser('create')
    s.add_argument('--pod-id', required=True)
    s.add_argument('--pod-config', required=True)
    s.add_argument('--pod-yaml', required=True)
    s.add_argument('--container')
    s.add_argument('--attempt', type=int, default=0)
    s.add_argument('--annotation', action='append')
    s.add_argument('--mount', action='append')
    s.set_defaults(fn=cmd_create)

    for name, fn in (('start', cmd_start), ('remove', cmd_remove),
                     ('status', cmd_status), ('pod-status', cmd_pod_status),
                     ('stop-pod', cmd_stop_pod),
                     ('remove-pod', cmd_remove_pod)):
        s = sub.add_parser(name)
        s.add_argument('id')
        s.set_defaults(fn=fn)
    s = sub.add_parser('stop')
    s.add_argument('id')
    s.add_argument('--timeout', type=int, default=0)
    s.set_defaults(fn=cmd_stop)
    s = sub.add_parser('exec')
    s.add_argument('id')
    s.add_argument('--timeout', type=int, default=10)
    s.add_argument('cmd', nargs='+')
    s.set_defaults(fn=cmd_exec)
    sub.add_parser('list-pods').set_defaults(fn=cmd_list_pods)
    return p


def main():
    global pb
    args = parser().parse_args()
    sys.path.insert(0, args.pb_dir)
    import cri_pb2
    pb = cri_pb2
    with grpc.insecure_channel('unix://' + os.path.abspath(args.socket)) \
            as channel:
        try:
            return args.fn(channel, args) or 0
        except CallFailed as e:
            print('cri_client: %s' % e, file=sys.stderr)
            return 2


if __name__ == '__main__':
    sys.exit(main())
