#!/bin/sh
# Makes sure Debian's ZooKeeper (and the Java runtime it needs) is on this machine.
# The tests start their own standalone server from these jars (scripts/zookeeper.global-setup.ts).
set -eu
if ls /usr/share/java/zookeeper*.jar >/dev/null 2>&1 && command -v java >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-zookeeper: no apt-get here; install ZooKeeper 3.8 jars in /usr/share/java and a Java runtime" >&2
  exit 1
fi
echo "ensure-zookeeper: installing Debian's zookeeper package" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends zookeeper default-jre-headless >/dev/null
ls /usr/share/java/zookeeper*.jar >/dev/null 2>&1 && command -v java >/dev/null 2>&1 || { echo "ensure-zookeeper: install failed" >&2; exit 1; }
