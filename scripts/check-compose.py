#!/usr/bin/env python3
"""What `docker compose config` would check of docker-compose.yml, without Docker: the YAML parses,
it validates against the Compose Specification's JSON schema (scripts/compose-spec.schema.json,
from github.com/compose-spec/compose-spec schema/compose-spec.json at 170098b), and it has what
this project needs: regrid in production mode from the env file, migrate before it, Cassandra and
Redis healthy first, and every env file variable the server requires named in .env.example.
Needs python3 with PyYAML and jsonschema. Exit 0 = all checks passed; 1 = a check failed.
"""
import json
import pathlib
import sys

import jsonschema
import yaml

root = pathlib.Path(__file__).resolve().parent.parent
compose = yaml.safe_load((root / "docker-compose.yml").read_text())
schema = json.loads((root / "scripts" / "compose-spec.schema.json").read_text())
problems = [
    f"schema: {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
    for e in jsonschema.Draft7Validator(schema).iter_errors(compose)
]


def need(ok, what):
    if not ok:
        problems.append(what)


services = compose.get("services", {})
for name in ("cassandra", "redis", "migrate", "regrid"):
    need(name in services, f"no service '{name}'")
regrid = services.get("regrid", {})
migrate = services.get("migrate", {})
for svc, s in (("regrid", regrid), ("migrate", migrate)):
    need(s.get("env_file") == ".env", f"{svc}: env_file is not .env")
    need(s.get("build") == ".", f"{svc}: not built from this Dockerfile")
    env = s.get("environment", {})
    need("NODE_ENV" not in env, f"{svc}: NODE_ENV overridden in compose (the image sets production)")
need(migrate.get("command") == ["node", "dist/cli.js", "migrate"], "migrate: command is not the CLI's migrate")
deps = regrid.get("depends_on", {})
need(deps.get("cassandra", {}).get("condition") == "service_healthy", "regrid: not after a healthy cassandra")
need(deps.get("redis", {}).get("condition") == "service_healthy", "regrid: not after a healthy redis")
need(deps.get("migrate", {}).get("condition") == "service_completed_successfully", "regrid: not after migrate")
for name in ("cassandra", "redis"):
    need("healthcheck" in services.get(name, {}), f"{name}: no healthcheck")

example = {}
for line in (root / ".env.example").read_text().splitlines():
    line = line.strip()
    if line.startswith("# ") and "=" in line and line[2:].split("=", 1)[0].isupper():
        example.setdefault(line[2:].split("=", 1)[0], None)  # documented, left for the user to set
    elif line and not line.startswith("#"):
        key, value = line.split("=", 1)
        example[key] = value
need(example.get("NODE_ENV") == "production", ".env.example: NODE_ENV is not production")
for key in ("CASSANDRA_CONTACT_POINTS", "REDIS_URL", "AUTH_JWT_SECRET"):
    need(key in example, f".env.example: {key} not mentioned")
need(example.get("CASSANDRA_CONTACT_POINTS") == "cassandra", ".env.example: contact points are not the cassandra service")
need(str(example.get("REDIS_URL", "")).startswith("redis://redis:"), ".env.example: REDIS_URL is not the redis service")

dockerfile = (root / "Dockerfile").read_text()
stages = [l.split()[-1] for l in dockerfile.splitlines() if l.startswith("FROM ")]
need(stages == ["build", "runtime"], f"Dockerfile stages are {stages}, not build + runtime")
runtime = dockerfile.split("AS runtime", 1)[-1]
for must in ("npm ci --omit=dev", "USER node", "HEALTHCHECK", "/readyz", 'CMD ["node", "dist/main.js"]'):
    need(must in runtime, f"Dockerfile runtime stage: no {must}")
need("tsx" not in runtime, "Dockerfile runtime stage mentions tsx")

if problems:
    print("compose/Dockerfile check FAILED:\n  " + "\n  ".join(problems))
    sys.exit(1)
print(f"docker-compose.yml: valid against the Compose schema; services {', '.join(services)}; "
      f"Dockerfile stages {' -> '.join(stages)}")
