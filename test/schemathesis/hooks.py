"""What the hub's OpenAPI document cannot spell out in JSON Schema, taught to
schemathesis: seven string formats (a kubeconfig, a docker config, a reconcile
interval between 10s and 168h, a base64 gzip'd tar for the fleet diff, a
label selector, whose grammar the document gives in words, a cron schedule
and an IANA time zone for rollout windows), a group in one rollout wave only,
the audit log's time range, that an admin binding has no tenant, the
meaning of a 202 to DELETE, and YAML answers of several documents (the agent's
install manifest), which are text to the schema."""

import base64
import io
import json
import re
import tarfile
from datetime import datetime, timedelta, timezone

import schemathesis
import yaml
from hypothesis import strategies as st
from schemathesis.core.media_types import YAML_MEDIA_TYPES
from schemathesis.core.parameters import ParameterLocation

KUBECONFIG_SERVER = "https://127.0.0.1:9"  # the discard port: connecting fails at once
UNITS = {"h": 3600, "m": 60, "s": 1}


def kubeconfig(context: str = "fuzz") -> str:
    # JSON is YAML, and json.dumps quotes any context name safely.
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "c", "cluster": {"server": KUBECONFIG_SERVER}}],
            "users": [{"name": "u", "user": {"token": "fuzz-token"}}],
            "contexts": [{"name": context, "context": {"cluster": "c", "user": "u"}}],
            "current-context": context,
        }
    )


def interval(seconds: int, in_seconds: bool) -> str:
    if in_seconds:  # "3600s" and "90m" are as valid as "1h"
        return f"{seconds}s"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return "".join(f"{n}{u}" for n, u in ((hours, "h"), (minutes, "m"), (secs, "s")) if n)


def interval_seconds(text: str):
    if not re.fullmatch(r"(\d+[hms])+", text):
        return None
    return sum(int(n) * UNITS[u] for n, u in re.findall(r"(\d+)([hms])", text))


def in_the_future(text: str) -> bool:
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when > datetime.now(timezone.utc) + timedelta(minutes=5)


def docker_config(host: str = "ghcr.io", user: str = "u", password: str = "p") -> str:
    auth = base64.b64encode(f"{user}:{password}".encode()).decode()
    return json.dumps({"auths": {host: {"auth": auth}}})


def timoni_artifact() -> str:
    """A project archive as `flotilla project diff --dir` uploads it: base64 of a gzip'd tar."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        data = b'project: {apiVersion: "v1alpha1", name: "fuzz", components: {}}\n'
        info = tarfile.TarInfo("project.cue")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return base64.b64encode(out.getvalue()).decode()


ARTIFACT = timoni_artifact()


def is_docker_config(text: str) -> bool:
    try:
        parsed = json.loads(text)
    except ValueError:
        return False
    return isinstance(parsed, dict) and isinstance(parsed.get("auths"), dict)


schemathesis.openapi.format("kubeconfig", st.just(kubeconfig()))
schemathesis.openapi.format("timoni-artifact", st.just(ARTIFACT))
CRON_SCHEDULES = ["0 9 * * 1-5", "*/15 * * * *", "30 22 * * 0", "0 0 1 * *"]
TIME_ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"]
schemathesis.openapi.format("cron", st.sampled_from(CRON_SCHEDULES))
schemathesis.openapi.format("time-zone", st.sampled_from(TIME_ZONES))
schemathesis.openapi.format("interval", st.builds(interval, st.integers(min_value=10, max_value=7 * 24 * 3600), st.booleans()))
schemathesis.openapi.format(
    "docker-config-json",
    st.builds(docker_config, st.sampled_from(["ghcr.io", "registry.example.com:5000"]), st.text("abc", min_size=1), st.text("xyz", min_size=1)),
)


# Label selectors built from the grammar's parts (LABEL_SELECTOR_GRAMMAR in the
# hub); the hub's parser is the only full statement of it, so the values made
# here are remembered and before_call keeps exactly those.
SELECTOR_KEYS = st.sampled_from(["env", "tier", "example.com/team", "a.b-c_d"])
SELECTOR_VALUES = st.sampled_from(["", "prod", "eu", "v1.2-x_y"])
SELECTOR_SPACE = st.sampled_from(["", " ", "  "])
SELECTOR_REQUIREMENTS = st.one_of(
    st.builds(lambda k, op, v, s: f"{s}{k}{s}{op}{s}{v}{s}", SELECTOR_KEYS, st.sampled_from(["=", "==", "!="]), SELECTOR_VALUES, SELECTOR_SPACE),
    st.builds(
        lambda k, op, vs, s: f"{s}{k} {op}{s}({s}{(s + ',' + s).join(vs)}{s}){s}",
        SELECTOR_KEYS,
        st.sampled_from(["in", "notin"]),
        st.lists(SELECTOR_VALUES, min_size=1, max_size=3),
        SELECTOR_SPACE,
    ),
    st.builds(lambda k, s: f"{s}{k}{s}", SELECTOR_KEYS, SELECTOR_SPACE),
    st.builds(lambda k, s: f"{s}!{s}{k}{s}", SELECTOR_KEYS, SELECTOR_SPACE),
)
LABEL_SELECTORS = {"env=prod"}


def remember_selector(text: str) -> str:
    LABEL_SELECTORS.add(text)
    return text


schemathesis.openapi.format("label-selector", st.lists(SELECTOR_REQUIREMENTS, min_size=1, max_size=4).map(",".join).map(remember_selector))


# Every YAML type, as schemathesis takes the first of a family it matches.
@schemathesis.deserializer(*YAML_MEDIA_TYPES)
def yaml_documents(_ctx, response):
    # The built-in YAML reader takes one document; a manifest is many. Each
    # must parse, and the body stays text, as the schema (type: string) says.
    text = response.content.decode(response.encoding or "utf-8")
    list(yaml.safe_load_all(text))
    return text


def valid_windows(rollout):
    """Rollout windows' cron schedules and time zones, which phases that ignore formats send as any string."""
    if not isinstance(rollout, dict) or not isinstance(rollout.get("windows"), list):
        return
    for window in rollout["windows"]:
        if not isinstance(window, dict):
            continue
        if isinstance(window.get("schedule"), str) and window["schedule"] not in CRON_SCHEDULES:
            window["schedule"] = CRON_SCHEDULES[0]
        if isinstance(window.get("timeZone"), str) and window["timeZone"] not in TIME_ZONES:
            window["timeZone"] = TIME_ZONES[1]


def distinct_wave_groups(rollout):
    """A group may be in one rollout wave only: the schema cannot say it across the items of a list."""
    if not isinstance(rollout, dict) or not isinstance(rollout.get("waves"), list):
        return
    seen = set()
    for i, wave in enumerate(rollout["waves"]):
        if not isinstance(wave, dict):
            continue
        names = wave.get("groups") if isinstance(wave.get("groups"), list) else [wave.get("group")]
        if any(isinstance(n, str) and n in seen for n in names):
            fresh = [f"w{i}-{j}" for j in range(max(1, len(names)))]
            if isinstance(wave.get("groups"), list):
                wave["groups"] = fresh
            else:
                wave["group"] = fresh[0]
            names = fresh
        seen.update(n for n in names if isinstance(n, str))


@schemathesis.hook
def before_call(context, case, kwargs):
    """Phases that ignore formats (coverage, stateful) still send valid values in valid requests."""
    query = case.query
    if isinstance(query, dict) and isinstance(query.get("labelSelector"), str) and query["labelSelector"] not in LABEL_SELECTORS:
        if case.meta is None or not case.meta.is_negative_at(ParameterLocation.QUERY):
            query["labelSelector"] = "env=prod"
    if case.path == "/api/v1/audit" and isinstance(query, dict) and (case.meta is None or not case.meta.is_negative_at(ParameterLocation.QUERY)):
        # ISO 8601 times with until after since: the schema says both only in words
        if "since" in query:
            query["since"] = "2020-01-01T00:00:00Z"
        if "until" in query:
            query["until"] = "2030-01-01T00:00:00Z"
    body = case.body
    if not isinstance(body, dict) or (case.meta is not None and case.meta.is_negative_at(ParameterLocation.BODY)):
        return
    creds = body.get("credentials")
    if isinstance(creds, dict) and isinstance(creds.get("kubeconfig"), str):
        # the kubeconfig must define the context the request names
        context_name = creds.get("context")
        creds["kubeconfig"] = kubeconfig(context_name if isinstance(context_name, str) else "fuzz")
    registry = body.get("registryCredentials")
    if isinstance(registry, dict) and isinstance(registry.get("dockerConfigJson"), str) and not is_docker_config(registry["dockerConfigJson"]):
        registry["dockerConfigJson"] = docker_config()
    if isinstance(body.get("artifact"), str) and body["artifact"] != ARTIFACT:
        body["artifact"] = ARTIFACT
    expires = body.get("expiresAt")
    if isinstance(expires, str) and not in_the_future(expires):
        # the hub refuses a token that has expired already: the schema cannot say "after now"
        body["expiresAt"] = (datetime.now(timezone.utc) + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    distinct_wave_groups(body.get("rollout"))
    valid_windows(body.get("rollout"))
    if case.path == "/api/v1/oidc-bindings" and body.get("role") == "admin" and body.get("tenant") is not None:
        # admin is only ever global: a binding in a tenant is viewer or operator (the schema says it in words)
        body["role"] = "operator"
    every = body.get("interval")
    if isinstance(every, str):
        seconds = interval_seconds(every)
        if seconds is None or not 10 <= seconds <= 7 * 24 * 3600:
            body["interval"] = "10m"


# DELETE answers 202 while Targets remove what the Project applied; until then
# the Project stays readable (status.deleting says so), as Kubernetes objects
# with a deletionTimestamp do. Only 200 and 204 mean gone.
DELETING = set()


@schemathesis.hook
def after_call(context, case, response):
    if case.method.upper() == "DELETE" and response.status_code == 202:
        DELETING.add(f"DELETE {case.formatted_path}")


# A Project's CDEvent deliveries outlive it on purpose (the OpenAPI summary
# says so): the environment.deleted event is delivered after the Project went,
# and the route is where its delivery is seen.
OUTLIVES_ITS_PROJECT = "/api/v1/projects/{name}/deliveries"


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if getattr(failure, "code", None) != "ST301":
        return True
    return not (getattr(failure, "free", None) in DELETING or case.path == OUTLIVES_ITS_PROJECT)
