package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Which versions a model's base path offers under its version policy, as
// tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc
// polls them: children whose names parse as int64 are versions (any other
// name is ignored), the highest N for latest, every one for all, the listed
// ones for specific.

type aspiredVersion struct {
	version int64
	dir     string
}

// parseVersionNumber accepts what TensorFlow's safe_strto64 accepts: an
// optionally signed decimal int64, surrounding spaces allowed.
func parseVersionNumber(name string) (int64, bool) {
	v, err := strconv.ParseInt(strings.TrimSpace(name), 10, 64)
	return v, err == nil
}

// pollBasePath lists the aspired versions, lowest first. warn receives the
// server's warnings ("No versions of servable ...", duplicates, missing
// specific versions). A base path that does not exist is an error.
func pollBasePath(c modelConfig, warn func(string)) ([]aspiredVersion, error) {
	if _, err := os.Stat(c.basePath); err != nil {
		status := fsError(err).Error()
		if os.IsNotExist(err) {
			status = fmt.Sprintf("NOT_FOUND: %s not found", c.basePath)
		}
		return nil, fmt.Errorf("INVALID_ARGUMENT: Could not find base path %s for servable %s with error %s", c.basePath, c.name, status)
	}
	entries, err := os.ReadDir(c.basePath)
	if err != nil {
		return nil, fsError(err)
	}
	byVersion := map[int64]string{}
	var all []aspiredVersion
	for _, e := range entries {
		v, ok := parseVersionNumber(e.Name())
		if !ok {
			continue
		}
		all = append(all, aspiredVersion{v, e.Name()})
		if prev, dup := byVersion[v]; dup {
			warn(fmt.Sprintf("Duplicate version directories detected. Version %d will be loaded from %s, %s will be ignored.", v, e.Name(), prev))
		}
		byVersion[v] = e.Name()
	}
	var versions []int64
	for v := range byVersion {
		versions = append(versions, v)
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i] < versions[j] })
	var out []aspiredVersion
	switch c.policy.kind {
	case "all":
		out = all
		sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	case "specific":
		wanted := map[int64]bool{}
		for _, v := range c.policy.versions {
			wanted[v] = true
		}
		for _, v := range versions {
			if wanted[v] {
				out = append(out, aspiredVersion{v, byVersion[v]})
			}
		}
		for _, v := range c.policy.versions {
			if _, ok := byVersion[v]; !ok {
				warn(fmt.Sprintf("Version %d of servable %s, which was requested to be served as a 'specific' version in the servable's version policy, was not found in the file system", v, c.name))
			}
		}
	default:
		from := max(len(versions)-int(max(c.policy.numVersions, 1)), 0)
		for _, v := range versions[from:] {
			out = append(out, aspiredVersion{v, byVersion[v]})
		}
	}
	if len(out) == 0 {
		warn(fmt.Sprintf("No versions of servable %s found under base path %s. Did you forget to name your leaf directory as a number (eg. '/1/')?", c.name, c.basePath))
	}
	return out, nil
}
