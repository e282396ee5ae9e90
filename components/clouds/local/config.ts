/**
 * cloud: local. The keys of a stack on an existing cluster: its kubeconfig and context, and the
 * registry the cluster pulls from (top-level keys: this cloud has no section).
 */
import * as path from "path";
import { REPOSITORY_PATH } from "../../../contract/registry";
import { ConfigReader } from "../../../config/configReader";

export interface LocalSettings {
    /** Kubeconfig file, absolute (for this program's own checks); undefined means the ambient one (`KUBECONFIG` or `~/.kube/config`). */
    kubeconfig?: string;
    /**
     * The same file as the stack file writes it (relative to the project, or `~/...`): the Kubernetes
     * provider's input. The provider resolves both forms itself, so the input is the same on every
     * machine and in every checkout, and the provider is never seen as changed.
     */
    kubeconfigAsWritten?: string;
    /** Kubeconfig context; undefined means its current context. */
    context?: string;
    registry: {
        /** `host:port` of the registry the cluster pulls from, e.g. `localhost:5001` for kind's local registry. */
        server: string;
        /** Repository path under the server; the image is `<server>/<repositoryPrefix>/<model>`. */
        repositoryPrefix: string;
        username?: string;
        /** Treated as a secret everywhere it goes. */
        password?: string;
    };
}

/** Reads the local keys; every problem is recorded on `r`. */
export function readLocal(r: ConfigReader, projectDir: string): LocalSettings {
    const reg = r.nested("registry");
    reg?.rejectUnknown(["server", "repositoryPrefix", "username", "password"]);
    const server = reg?.string("server") ?? "localhost:5001";
    const port = /^[a-zA-Z0-9.-]+(?::([0-9]{1,5}))?$/.exec(server);
    if (port === null) {
        (reg ?? r).fail(reg ? "server" : "registry", "must be a registry host[:port] such as \"localhost:5001\" (no scheme, no path)", server);
    } else if (port[1] !== undefined && (Number(port[1]) < 1 || Number(port[1]) > 65535)) {
        (reg ?? r).fail(reg ? "server" : "registry", `has port ${port[1]}, but a TCP port is 1 to 65535: the registry's port, e.g. "localhost:5001"`, server);
    }
    const prefix = reg?.string("repositoryPrefix") ?? "tf-serving";
    if (!REPOSITORY_PATH.test(prefix)) {
        reg?.fail("repositoryPrefix", "must be a lowercase repository path such as \"tf-serving\" or \"team/models\"");
    }
    const username = reg?.string("username");
    if (username?.includes(":")) {
        // Basic authentication sends "user:password": the first ':' ends the user name (RFC 7617, section 2).
        reg?.fail("username", "contains ':', which HTTP Basic authentication (the registry login and the pods' dockerconfigjson `auth`) takes as the end of the user name: use the registry account's name without ':'");
    }
    const password = reg?.string("password");
    if ((username === undefined) !== (password === undefined)) {
        reg?.fail(username === undefined ? "username" : "password", "registry.username and registry.password go together (set the password with --secret)", undefined);
    }
    const kubeconfig = r.string("kubeconfig");
    return {
        kubeconfig: kubeconfig === undefined ? undefined : path.resolve(projectDir, kubeconfig.replace(/^~(?=$|\/)/, process.env.HOME ?? "~")),
        kubeconfigAsWritten: kubeconfig,
        context: r.string("kubeContext"),
        registry: { server, repositoryPrefix: prefix, username, password },
    };
}
