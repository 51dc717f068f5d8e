#!/bin/sh
# Makes a minimal Node base image from this machine's own Node install, for building the
# Containerfile where no registry of container images is reachable (our CI machines reach only
# the npm registry and Debian's packages). It holds node and npm, their shared libraries, sh and
# the few coreutils a RUN step uses, nothing else; the image it makes is for verifying the recipe,
# not for production (use the official node image there, see deploy/README.md).
#
#   sh deploy/container/offline-base.sh [image-name]   # default localhost/vesta-offline-node:<major>
#
# Needs podman (or set PODMAN=docker); prints the image name on its last line.
set -eu
podman=${PODMAN:-podman}
node_bin=$(command -v node)
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
major=$("$node_bin" -p 'process.versions.node.split(".")[0]')
image=${1:-localhost/vesta-offline-node:$major}

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/bin" "$root/usr/lib/node_modules" "$root/tmp" "$root/etc" "$root/root"
chmod 1777 "$root/tmp"
ln -s usr/bin "$root/bin"

# Each program and every library it loads (ldd), at the same paths as on this machine.
programs="$node_bin $(command -v sh) $(command -v env) $(command -v mkdir) $(command -v rm) $(command -v ls) $(command -v cat)"
for program in $programs; do
  real=$(readlink -f "$program")
  cp "$real" "$root/usr/bin/$(basename "$program")"
  for library in $(ldd "$real" | grep -o '/[^ ]*'); do
    mkdir -p "$root$(dirname "$library")"
    cp -L "$library" "$root$library"
  done
done
cp -a "$npm_dir" "$root/usr/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"

# This machine's trust store, which npm in a RUN step needs when the way to the registry
# presents a certificate authority of its own (as a TLS-inspecting proxy does).
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  mkdir -p "$root/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
fi

# The users of the official node image: root, node (1000) and nobody.
printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'node:x:1000:1000::/home/node:/bin/sh' \
  'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' >"$root/etc/passwd"
printf '%s\n' 'root:x:0:' 'node:x:1000:' 'nogroup:x:65534:' >"$root/etc/group"

tar -C "$root" -c . | "$podman" import \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' \
  - "$image" >/dev/null
echo "$image"
