// A stand-in for tensorflow_model_server, baked into the e2e environment's
// local base image (the real tensorflow/serving image cannot be pulled here).
module tfs-e2e/tfserving-standin

go 1.24.0
