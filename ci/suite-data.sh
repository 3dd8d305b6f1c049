#!/usr/bin/env bash
# Links the suite's data into the suite crate's folder for packing, and unlinks it after.
#
#   ci/suite-data.sh link     conformance/suite/{cases,schema,providers,SPEC.md,PROTOCOL.md} -> ../…
#   ci/suite-data.sh unlink   removes those links (only links: never a real file or folder)
#
# The data is language-neutral and lives in conformance/, where adapters in every language read
# it; the crate that embeds it lives in conformance/suite/. `cargo package` ships only files under
# the crate's folder, and follows links, so ci/package.sh and the release's publish job link the
# data in first. The links are not committed (.gitignore): a Windows checkout would turn them into
# text files. conformance/suite/build.rs reads the data from the crate's folder when it is there
# (a package) and from conformance/ otherwise (a checkout).
set -euo pipefail
cd "$(dirname "$0")/../conformance/suite"
items=(cases schema providers SPEC.md PROTOCOL.md)
case "${1:-}" in
    link)
        for f in "${items[@]}"; do
            if [[ -e $f && ! -L $f ]]; then
                echo "ci/suite-data.sh: conformance/suite/$f exists and is not a link; refusing to replace it" >&2
                exit 1
            fi
            ln -sfn "../$f" "$f"
        done
        ;;
    unlink)
        for f in "${items[@]}"; do
            if [[ -L $f ]]; then rm "$f"; fi
        done
        ;;
    *)
        echo "usage: ci/suite-data.sh link|unlink" >&2
        exit 2
        ;;
esac
