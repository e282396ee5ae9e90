/**
 * A repository path under a registry host (`tf-serving`, `team/models`), as the OCI distribution
 * spec's name grammar allows it and ECR accepts it: lowercase components joined by `/`.
 */
export const REPOSITORY_PATH = /^[a-z0-9]+([._-][a-z0-9]+)*(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/;
