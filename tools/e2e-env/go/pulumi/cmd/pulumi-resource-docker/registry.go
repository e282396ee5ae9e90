package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

const getRegistryImageToken = "docker:index/getRegistryImage:getRegistryImage"

// registryLogin is one entry of the provider's registryAuth configuration.
type registryLogin struct {
	Address  string `json:"address"`
	Username string `json:"username"`
	Password string `json:"password"`
}

// registryAuthFrom reads the provider's registryAuth configuration: a list of
// {address, username, password}, as a structured value or as the JSON text
// SDKs send provider configuration as. Logins are keyed by registry host.
func registryAuthFrom(v resource.PropertyValue) (map[string]registryLogin, error) {
	for v.IsSecret() {
		v = v.SecretValue().Element
	}
	var logins []registryLogin
	switch {
	case v.IsNull():
		return map[string]registryLogin{}, nil
	case v.IsString():
		if err := json.Unmarshal([]byte(v.StringValue()), &logins); err != nil {
			return nil, fmt.Errorf("docker provider configuration registryAuth: not a JSON list of {address, username, password}: %w", err)
		}
	case v.IsArray():
		data, err := json.Marshal(v.Mappable())
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &logins); err != nil {
			return nil, fmt.Errorf("docker provider configuration registryAuth: entries must be {address, username, password}: %w", err)
		}
	default:
		return nil, fmt.Errorf("docker provider configuration registryAuth: expected a list of {address, username, password}")
	}
	byHost := map[string]registryLogin{}
	for _, l := range logins {
		if l.Address == "" {
			return nil, fmt.Errorf("docker provider configuration registryAuth: every entry needs an address (registry host[:port])")
		}
		byHost[registryHost(l.Address)] = l
	}
	return byHost, nil
}

// registryHost strips a scheme and a path from a registry address, as the
// real provider normalizes addresses before looking logins up.
func registryHost(address string) string {
	address = strings.TrimPrefix(strings.TrimPrefix(address, "https://"), "http://")
	host, _, _ := strings.Cut(address, "/")
	return host
}

// imageReference splits a full image name into the registry host, the
// repository path on it, and the tag or digest (default tag latest).
func imageReference(name string) (host, path, reference string, err error) {
	repo := name
	reference = "latest"
	if at := strings.Index(name, "@"); at >= 0 {
		repo, reference = name[:at], name[at+1:]
	} else {
		repo, reference = splitImageName(name)
	}
	host = (imageInputs{imageName: repo}).registryServer()
	path = strings.TrimPrefix(repo, host+"/")
	if host == "docker.io" {
		return "", "", "", fmt.Errorf("image %q: give the registry host in the name (this stand-in reads private registries, e.g. localhost:5001/team/model:tag)", name)
	}
	return host, path, reference, nil
}

// getRegistryImage answers docker:index/getRegistryImage:getRegistryImage:
// the manifest digest the registry serves for the image's tag, asked of its
// v2 API with the configured login for its host.
func (p *provider) getRegistryImage(ctx context.Context, args resource.PropertyMap) (resource.PropertyMap, error) {
	name, known := stringAt(args, "name")
	if !known || name == "" {
		return nil, fmt.Errorf("getRegistryImage: name is required (REGISTRY/REPOSITORY:TAG)")
	}
	host, path, reference, err := imageReference(name)
	if err != nil {
		return nil, fmt.Errorf("getRegistryImage: %w", err)
	}
	login := p.registryAuth[host]
	digest, err := registryDigest(ctx, host, path, reference, login.Username, login.Password)
	if err != nil {
		return nil, fmt.Errorf("getRegistryImage %s: %w", name, err)
	}
	insecure := false
	if v, ok := args["insecureSkipVerify"]; ok && v.IsBool() {
		insecure = v.BoolValue()
	}
	return resource.PropertyMap{
		"id":                 resource.NewStringProperty(digest),
		"name":               resource.NewStringProperty(name),
		"sha256Digest":       resource.NewStringProperty(digest),
		"insecureSkipVerify": resource.NewBoolProperty(insecure),
	}, nil
}
