/**
 * tf-serving: a TensorFlow SavedModel to a TensorFlow Serving endpoint on Kubernetes.
 *
 * Reads and validates the whole configuration, checks credentials, preflights and sizes every
 * model, and only then registers the stack for the configured cloud (`stacks/program.ts`). A user
 * mistake stops here, at preview, with a message naming the key or path, before anything is created.
 */
import * as pulumi from "@pulumi/pulumi";
import { runProgram } from "./stacks/program";
import { installLeanPromiseStacks } from "./stacks/promiseStacks";
import { engineSecretKeys } from "./stacks/secretKeys";

// Before the first resource: the SDK's per-promise stack traces go unformatted (stacks/promiseStacks.ts).
installLeanPromiseStacks(Error, process.env);

// A function, not its promise: the language host awaits other work between loading this module and
// awaiting what it exports, and a promise rejected by a config refusal in between would be reported
// as unhandled, then as handled late (PromiseRejectionHandledWarning before the refusal). The host
// runs the program in the project folder.
export = () => runProgram({
    project: pulumi.getProject(), stack: pulumi.getStack(), config: pulumi.runtime.allConfig(), projectDir: process.cwd(), secretKeys: engineSecretKeys(process.env),
}, { offline: false });
