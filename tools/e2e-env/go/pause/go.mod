// The pod sandbox ("pause") image's only program, for the e2e environment's
// real node: nothing can be pulled from a public registry here.
module tfs-e2e/pause

go 1.24.0
