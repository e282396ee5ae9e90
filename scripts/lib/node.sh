# Sourced by the scripts that run node or npm (scripts/up-local, scripts/e2e-env, .ci/run), never run.
#
# tfs_node_ensure: leaves a Node.js of TFS_NODE_MIN (package.json's engines.node, MAJOR.MINOR) or
# later first on PATH. The user's own node is used as it is when it is recent enough; otherwise
# (Node.js 20 and older are past their end of life, and @pulumi/pulumi declares Node.js 22 or later)
# the pinned Node.js 24 LTS build, which the npm registry serves as the package node-linux-<arch>, is
# installed once with the npm on PATH into the environment's cache ($TFS_E2E_CACHE/node-VERSION,
# default ~/.cache/tf-serving-e2e; a cached build that does not run is installed again, and none that
# does not run is ever put on PATH). Its bin folder goes first on PATH (exported, so every child
# process, Pulumi's language host included, finds it) and is exported as TFS_NODE_BIN (the e2e
# environment's env file puts it first on PATH too). The npm on PATH stays the one that runs (npm
# runs on the node first on PATH).

TFS_NODE_VERSION=24.22.3
TFS_NODE_MIN=22.11

tfs_node_ensure() {
	local have cache dir arch tmp
	have=$(node -p 'process.versions.node' 2> /dev/null || true)
	if [[ $have =~ ^([0-9]+)\.([0-9]+)\. ]] && ((BASH_REMATCH[1] > ${TFS_NODE_MIN%.*} || (BASH_REMATCH[1] == ${TFS_NODE_MIN%.*} && BASH_REMATCH[2] >= ${TFS_NODE_MIN#*.}))); then
		return 0
	fi
	cache=${TFS_E2E_CACHE:-$HOME/.cache/tf-serving-e2e}
	dir=$cache/node-$TFS_NODE_VERSION
	# A cached build that does not run (cut short, another machine's architecture) is installed again.
	if [[ -x $dir/bin/node ]] && ! "$dir/bin/node" --version > /dev/null 2>&1; then
		echo "== the cached Node.js $TFS_NODE_VERSION in $dir does not run: installing it again" >&2
		rm -rf "$dir"
	fi
	if [[ ! -x $dir/bin/node ]]; then
		case $(uname -m) in
			x86_64 | amd64) arch=x64 ;;
			aarch64 | arm64) arch=arm64 ;;
			*)
				echo "error: Node.js ${have:-(none)} is older than $TFS_NODE_MIN and no Node.js build is packaged for $(uname -m): install Node.js $TFS_NODE_MIN or later (see docs/getting-started/loopback.md#nodejs)" >&2
				return 1
				;;
		esac
		if ! command -v npm > /dev/null; then
			echo "error: Node.js ${have:-(none)} is older than $TFS_NODE_MIN and npm is not on PATH to install Node.js $TFS_NODE_VERSION: install Node.js $TFS_NODE_MIN or later (see docs/getting-started/loopback.md#nodejs)" >&2
			return 1
		fi
		echo "== Node.js ${have:-(none)} is older than $TFS_NODE_MIN: installing Node.js $TFS_NODE_VERSION (npm package node-linux-$arch) into $dir" >&2
		mkdir -p "$cache"
		tmp=$(mktemp -d "$dir.tmp.XXXXXX")
		if ! (cd "$tmp" && npm pack --silent "node-linux-$arch@$TFS_NODE_VERSION" > /dev/null && tar -xzf node-linux-"$arch"-*.tgz) \
			|| ! "$tmp/package/bin/node" --version > /dev/null; then
			rm -rf "$tmp"
			echo "error: installing Node.js $TFS_NODE_VERSION (npm pack node-linux-$arch@$TFS_NODE_VERSION) failed: install Node.js $TFS_NODE_MIN or later (see docs/getting-started/loopback.md#nodejs)" >&2
			return 1
		fi
		# Another script may have installed it meanwhile: theirs is as good.
		mv -T "$tmp/package" "$dir" 2> /dev/null || [[ -x $dir/bin/node ]] || {
			rm -rf "$tmp"
			echo "error: could not move Node.js $TFS_NODE_VERSION into $dir" >&2
			return 1
		}
		rm -rf "$tmp"
	fi
	# Theirs (moved in meanwhile) is checked too: nothing that does not run goes first on PATH.
	if ! "$dir/bin/node" --version > /dev/null 2>&1; then
		echo "error: the Node.js $TFS_NODE_VERSION in $dir does not run: remove $dir and run again, or install Node.js $TFS_NODE_MIN or later (see docs/getting-started/loopback.md#nodejs)" >&2
		return 1
	fi
	export TFS_NODE_BIN="$dir/bin"
	export PATH="$dir/bin:$PATH"
}
