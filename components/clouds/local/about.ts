/** cloud: local, as the config layer sees it before loading anything of it (`CloudAbout`). */
import type { CloudAbout } from "../cloud";

export const localAbout: CloudAbout = {
    ownKeys: ["registry", "kubeconfig", "kubeContext"],
};
