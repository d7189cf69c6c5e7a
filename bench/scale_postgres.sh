#!/usr/bin/env bash
# The region-size benchmark of issue 15 on PostgreSQL: COUNT work zones (default 1,000,000,
# bench/make_wzdx.py) in a PostgreSQL + PostGIS database served by two nodes, as a deployment
# of several nodes runs (`traffic serve --postgres URL`, default options), measured for:
#   import      wall time and peak RSS of `traffic import --postgres` into an empty database
#   ready       per node: seconds from start to the first answered v7 query (a 1 km circle
#               in Berlin, answered from PostGIS while the node loads), to every incident
#               loaded and indexed, and RSS then
#   follow      30 documents of 1,000 changed work zones pushed to node A, one every 0.5 s:
#               time until A answered, and until the change was visible in a query on node B
# The database is a throw-away cluster (Debian's PostgreSQL 15 with its default settings,
# durable commits included) on loopback, removed at the end. Needs about 6 GB of disk in
# $TMPDIR. `make bench` runs it after bench/scale.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/scale_common.sh
source bench/scale_common.sh

count="${1:-1000000}"
# Debian 12's PostgreSQL 15 (postgresql-15-postgis-3 in the Makefile ties the version).
initdb=/usr/lib/postgresql/15/bin/initdb
pg_ctl=/usr/lib/postgresql/15/bin/pg_ctl
psql=/usr/lib/postgresql/15/bin/psql
scale_setup scale-postgres

# The cluster: initdb refuses to run as root, so root runs it as Debian's postgres user.
cluster="$work/cluster"
mkdir -p "$cluster"
as_owner=()
if [[ "$(id -u)" == 0 ]]; then
  chmod 755 "$work"
  chown postgres: "$cluster"
  as_owner=(runuser -u postgres --)
fi
pg_port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
stop_cluster() {
  "${as_owner[@]}" "$pg_ctl" -D "$cluster/data" -m fast stop >/dev/null 2>&1 || true
  scale_cleanup
}
trap stop_cluster EXIT
echo "== scale postgres: a PostgreSQL cluster on port $pg_port" >&2
"${as_owner[@]}" "$initdb" -D "$cluster/data" -U traffic -A trust -E UTF8 --locale=C \
  >"$work/initdb.log"
"${as_owner[@]}" "$pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 60 \
  -o "-p $pg_port -k $cluster -c listen_addresses=127.0.0.1" start >/dev/null
"$psql" -q -h 127.0.0.1 -p "$pg_port" -U traffic -d postgres -c "CREATE DATABASE traffic"
url="postgresql://traffic@127.0.0.1:$pg_port/traffic"

echo "== scale postgres: writing $count work zones and the push documents" >&2
"$python" bench/make_wzdx.py "$count" "$work/zones.geojson" 42 germany
"$python" "$tools" docs "$work/zones.geojson" "$work" 30 1000 push1000 1

echo "== scale postgres: traffic import --postgres" >&2
import="$("$python" "$tools" run "$bin" import --postgres "$url" "$work/zones.geojson" | tail -1)"
echo "scale postgres import $count work zones: $import"
rm -f "$work/zones.geojson"

serve_ready "scale postgres node A ready" --postgres "$url"
port_a="$port"
serve_ready "scale postgres node B ready" --postgres "$url"
port_b="$port"

echo "== scale postgres: pushes of 1,000 changes to node A, followed by node B" >&2
follow="$("$python" "$tools" follow "$port_a" "$port_b" "$work" push1000 30)"
echo "scale postgres push 1000 changes: $follow"
