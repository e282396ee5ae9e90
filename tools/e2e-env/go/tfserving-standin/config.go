package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
)

// The configuration files: --model_config_file (ModelServerConfig,
// tensorflow_serving/config/model_server_config.proto and
// sources/storage_path/file_system_storage_path_source.proto),
// --monitoring_config_file (config/monitoring_config.proto) and
// --batching_parameters_file (servables/tensorflow/session_bundle_config.proto).

type versionPolicy struct {
	kind        string // "latest", "all" or "specific"
	numVersions int64
	versions    []int64
}

type modelConfig struct {
	name, basePath, platform string
	policy                   versionPolicy
	labels                   map[string]int64
}

var labelName = regexp.MustCompile(`^[a-zA-Z0-9_]+$`)

// invalidProtoFile is the server's answer to a config file it cannot parse.
func invalidProtoFile(file string, err error) error {
	return fmt.Errorf("INVALID_ARGUMENT: Invalid protobuf file: '%s' (%v)", file, err)
}

func readTextProtoFile(file string) (*tpMessage, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fsError(err)
	}
	m, err := parseTextProto(string(data))
	if err != nil {
		return nil, invalidProtoFile(file, err)
	}
	return m, nil
}

func parseModelConfigFile(file string) ([]modelConfig, error) {
	root, err := readTextProtoFile(file)
	if err != nil {
		return nil, err
	}
	bad := func(err error) ([]modelConfig, error) { return nil, invalidProtoFile(file, err) }
	if err := root.checkNames("tensorflow.serving.ModelServerConfig", "model_config_list", "custom_model_config"); err != nil {
		return bad(err)
	}
	list := root.message("model_config_list")
	if list == nil {
		return nil, fmt.Errorf("INVALID_ARGUMENT: %s has no model_config_list", file)
	}
	if err := list.checkNames("tensorflow.serving.ModelConfigList", "config"); err != nil {
		return bad(err)
	}
	var out []modelConfig
	seen := map[string]bool{}
	for _, f := range list.all("config") {
		c, err := readModelConfig(f.msg)
		if err != nil {
			return bad(err)
		}
		if seen[c.name] {
			return nil, fmt.Errorf("INVALID_ARGUMENT: Illegal to list model %s multiple times in config list", c.name)
		}
		if c.platform != "tensorflow" {
			return nil, fmt.Errorf("INVALID_ARGUMENT: Illegal setting ModelConfig::model_platform %q for model %s", c.platform, c.name)
		}
		seen[c.name] = true
		out = append(out, c)
	}
	return out, nil
}

func readModelConfig(m *tpMessage) (modelConfig, error) {
	c := modelConfig{policy: versionPolicy{kind: "latest", numVersions: 1}, labels: map[string]int64{}}
	if m == nil {
		return c, fmt.Errorf("config must be a message")
	}
	if err := m.checkNames("tensorflow.serving.ModelConfig", "name", "base_path", "model_type", "model_platform",
		"model_version_policy", "version_labels", "logging_config"); err != nil {
		return c, err
	}
	c.name, _ = m.scalar("name")
	c.basePath, _ = m.scalar("base_path")
	c.platform, _ = m.scalar("model_platform")
	if p := m.message("model_version_policy"); p != nil {
		if err := p.checkNames("tensorflow.serving.FileSystemStoragePathSourceConfig.ServableVersionPolicy", "latest", "all", "specific"); err != nil {
			return c, err
		}
		switch {
		case p.message("all") != nil:
			c.policy = versionPolicy{kind: "all"}
		case p.message("specific") != nil:
			c.policy = versionPolicy{kind: "specific"}
			for _, v := range p.message("specific").all("versions") {
				n, err := strconv.ParseInt(v.value, 10, 64)
				if err != nil {
					return c, fmt.Errorf("versions: %q is not an int64", v.value)
				}
				c.policy.versions = append(c.policy.versions, n)
			}
		case p.message("latest") != nil:
			if s, ok := p.message("latest").scalar("num_versions"); ok {
				n, err := strconv.ParseUint(s, 10, 32)
				if err != nil {
					return c, fmt.Errorf("num_versions: %q is not a uint32", s)
				}
				c.policy.numVersions = max(int64(n), 1)
			}
		}
	}
	for _, l := range m.all("version_labels") {
		if l.msg == nil {
			return c, fmt.Errorf("version_labels must be a message")
		}
		key, _ := l.msg.scalar("key")
		value, _ := l.msg.scalar("value")
		v, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return c, fmt.Errorf("version_labels value %q is not an int64", value)
		}
		if !labelName.MatchString(key) {
			return c, fmt.Errorf("invalid version label name %q", key)
		}
		c.labels[key] = v
	}
	return c, nil
}

type monitoringConfig struct {
	prometheus bool
	path       string
}

const defaultPrometheusPath = "/monitoring/prometheus/metrics"

func parseMonitoringConfigFile(file string) (monitoringConfig, error) {
	mc := monitoringConfig{path: defaultPrometheusPath}
	root, err := readTextProtoFile(file)
	if err != nil {
		return mc, err
	}
	if err := root.checkNames("tensorflow.serving.MonitoringConfig", "prometheus_config"); err != nil {
		return mc, invalidProtoFile(file, err)
	}
	if p := root.message("prometheus_config"); p != nil {
		if err := p.checkNames("tensorflow.serving.PrometheusConfig", "enable", "path"); err != nil {
			return mc, invalidProtoFile(file, err)
		}
		enable, _ := p.scalar("enable")
		mc.prometheus = enable == "true" || enable == "1"
		if path, ok := p.scalar("path"); ok && path != "" {
			mc.path = path
		}
	}
	return mc, nil
}

// checkBatchingParametersFile reads the file as the server does at start;
// the stand-in does not batch, so only its validity matters.
func checkBatchingParametersFile(file string) error {
	root, err := readTextProtoFile(file)
	if err != nil {
		return err
	}
	if err := root.checkNames("tensorflow.serving.BatchingParameters", "max_batch_size", "batch_timeout_micros",
		"max_enqueued_batches", "num_batch_threads", "thread_pool_name", "allowed_batch_sizes",
		"pad_variable_length_inputs", "enable_large_batch_splitting", "max_execution_batch_size"); err != nil {
		return invalidProtoFile(file, err)
	}
	return nil
}
