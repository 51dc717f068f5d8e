#!/bin/sh
# Makes sure Debian's ZooKeeper (and the Java runtime it needs) is on this machine.
# The tests start their own standalone server from these jars (scripts/zookeeper.global-setup.ts).
set -eu
. "$(dirname "$0")/lib/apt.sh"
present() { ls /usr/share/java/zookeeper*.jar >/dev/null 2>&1 && command -v java >/dev/null 2>&1; }
apt_ensure "install ZooKeeper 3.8 jars in /usr/share/java and a Java runtime" \
  zookeeper default-jre-headless
