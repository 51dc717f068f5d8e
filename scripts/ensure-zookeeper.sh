#!/bin/sh
# Makes sure Debian's ZooKeeper (and the Java runtime it needs) is on this machine.
# The tests start their own standalone server from these jars (see vitest.global-setup.ts).
set -eu
if ls /usr/share/java/zookeeper*.jar >/dev/null 2>&1 && command -v java >/dev/null 2>&1; then
  exit 0
fi
echo "ensure-zookeeper: installing Debian's zookeeper package" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends zookeeper default-jre-headless >/dev/null
