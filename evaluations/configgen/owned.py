"""Queue objects install.sh owns: each is labelled `app.kubernetes.io/managed-by: ecomap` when
generated, so a later run can remove those an earlier decision placed and this one no longer
has (a tenant or a pool taken out), and never touches a queue a person made.

The removal names what stays rather than what goes: `kubectl delete KIND -l
app.kubernetes.io/managed-by=ecomap --field-selector metadata.name!=A,metadata.name!=B`. Every
custom resource serves the metadata.name and metadata.namespace field selectors (Kubernetes
"Field Selectors": "All custom resource types support the metadata.name and metadata.namespace
fields"), and a delete that matches nothing prints "No resources found" and succeeds.

What the schedulers do on deletion, at the releases the catalog pins:
- Kueue keeps a ClusterQueue or ResourceFlavor that is still in use behind its finalizer until its
  workloads finish, so the delete is sent with --wait=false and the script goes on;
- Volcano v1.15.1's webhook refuses to delete a queue that still has allocated pods
  (pkg/webhooks/admission/queues/validate/validate_queue.go#L295-L326): the script stops there,
  with Volcano's reason, after everything else is applied;
- KAI Scheduler queues are deleted like any custom resource.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaluations.configgen.model import GeneratedFile

MANAGED_BY = "app.kubernetes.io/managed-by"
ECOMAP = "ecomap"
SELECTOR = f"{MANAGED_BY}={ECOMAP}"

# (generated file kind, object kind) -> the resource kubectl deletes, fully qualified so another
# project's kind of the same name (Volcano's and KAI's Queue) is never meant.
OWNED: dict[tuple[str, str], str] = {
    ("kueue", "ClusterQueue"): "clusterqueues.kueue.x-k8s.io",
    ("kueue", "LocalQueue"): "localqueues.kueue.x-k8s.io",
    ("kueue", "ResourceFlavor"): "resourceflavors.kueue.x-k8s.io",
    ("volcano", "Queue"): "queues.scheduling.volcano.sh",
    ("kai-scheduler", "Queue"): "queues.scheduling.run.ai",
}


def mark_owned(files: Sequence[GeneratedFile]) -> None:
    """Label every owned object of `files` (in place) as EcoMap's."""
    for file in files:
        for doc in file.documents:
            data = doc.data
            if (file.kind, data.get("kind")) in OWNED and isinstance(data.get("metadata"), dict):
                data["metadata"].setdefault("labels", {})[MANAGED_BY] = doc.note(
                    f"metadata.labels.{MANAGED_BY}",
                    ECOMAP,
                    "install.sh removes EcoMap's queues a later decision no longer has, and "
                    "only those (docs/configgen.md)",
                )


def stale_removals(files: Sequence[GeneratedFile]) -> list[tuple[tuple[str, ...], str]]:
    """The commands that remove EcoMap's queue objects the files no longer hold, with why: per
    resource, cluster-scoped objects by name, namespaced ones by namespace (a tenant taken out)
    and by name (one command when every namespace keeps the same names, as the LocalQueues do)."""
    kept: dict[str, set[tuple[str, str]]] = {}
    for file in files:
        for doc in file.documents:
            resource = OWNED.get((file.kind, doc.data.get("kind")))
            if resource is not None:
                meta = doc.data["metadata"]
                kept.setdefault(resource, set()).add((meta.get("namespace", ""), meta["name"]))
    commands = []
    for resource, objects in kept.items():
        delete = ("kubectl", "delete", resource, "-l", SELECTOR, "--wait=false")
        namespaces = sorted({namespace for namespace, _name in objects if namespace})
        if not namespaces:
            names = sorted(name for _ns, name in objects)
            commands.append(
                (
                    (*delete, "--field-selector", _not_in("metadata.name", names)),
                    f"EcoMap's {resource} other than {', '.join(names)}: an earlier decision's, "
                    "no longer wanted (nothing to do when there is none)",
                )
            )
            continue
        commands.append(
            (
                (*delete, "-A", "--field-selector", _not_in("metadata.namespace", namespaces)),
                f"EcoMap's {resource} outside the tenants' namespaces {', '.join(namespaces)}: "
                "those of tenants the decision no longer has",
            )
        )
        named = {ns: sorted(name for n, name in objects if n == ns) for ns in namespaces}
        if len({tuple(names) for names in named.values()}) == 1:  # the same in every namespace
            names = named[namespaces[0]]
            commands.append(
                (
                    (*delete, "-A", "--field-selector", _not_in("metadata.name", names)),
                    f"EcoMap's {resource} named other than {', '.join(names)}",
                )
            )
            continue
        for namespace, names in named.items():
            commands.append(
                (
                    (*delete, "-n", namespace, "--field-selector", _not_in("metadata.name", names)),
                    f"EcoMap's {resource} in {namespace} other than {', '.join(names)}",
                )
            )
    return commands


def _not_in(field: str, values: Sequence[str]) -> str:
    return ",".join(f"{field}!={value}" for value in values)
