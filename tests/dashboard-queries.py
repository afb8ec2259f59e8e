#!/usr/bin/env python3
"""Every PromQL expression of a Grafana dashboard, asked of a real
Prometheus: each panel's targets and each query variable's label_values.
Grafana's variables are given the values it would: $instance, $camera
and $mount all (.*), $__rate_interval four scrape intervals, $__range the time the
test ran.  Prints one line an expression; exit 1 when one returns no
series (or an error): a panel that would stay empty.
Usage: dashboard-queries.py DASHBOARD.json PROMETHEUS_URL SCRAPE_SECONDS
RANGE_SECONDS"""
import json
import re
import sys
import urllib.parse
import urllib.request


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)


def exprs(dash):
    for p in dash["panels"]:
        for t in p.get("targets", []):
            yield p["title"], t["expr"]
        for inner in p.get("panels", []):  # a collapsed row's
            for t in inner.get("targets", []):
                yield inner["title"], t["expr"]


def main():
    dash = json.load(open(sys.argv[1]))
    prom, scrape, span = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    values = {"instance": ".*", "camera": ".*", "mount": ".*",
              "__rate_interval": "%ds" % (4 * scrape),
              "__interval": "%ds" % scrape, "__range": "%ds" % span}
    bad = 0
    for title, expr in exprs(dash):
        q = re.sub(r"\$\{?(\w+)\}?", lambda m: values[m.group(1)], expr)
        j = get(prom + "/api/v1/query?" + urllib.parse.urlencode({"query": q}))
        n = len(j["data"]["result"]) if j.get("status") == "success" else 0
        print("%s: %d series: %s" % (title, n, q))
        bad += n == 0
    for v in dash["templating"]["list"]:
        m = re.fullmatch(r"label_values\((\w+), (\w+)\)", v["definition"])
        url = "%s/api/v1/label/%s/values?%s" % (
            prom, m.group(2), urllib.parse.urlencode({"match[]": m.group(1)}))
        got = get(url)["data"]
        print("variable %s: %s" % (v["name"], got))
        bad += not got
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
