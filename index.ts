/**
 * tf-serving: a TensorFlow SavedModel to a TensorFlow Serving endpoint on Kubernetes.
 *
 * Reads and validates the whole configuration, checks credentials, preflights and sizes every
 * model, and only then registers the stack for the configured cloud (`stacks/program.ts`). A user
 * mistake stops here, at preview, with a message naming the key or path, before anything is created.
 */
import * as pulumi from "@pulumi/pulumi";
import { runProgram } from "./stacks/program";

// The language host runs the program in the project folder.
export = runProgram({ project: pulumi.getProject(), config: pulumi.runtime.allConfig(), projectDir: process.cwd() }, { offline: false });
