// Package pulumi installs the environment's provider plugins into its plugin
// cache and logs the CLI in to the local backend.
package pulumi

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// Engine is the bundle's CLI with PULUMI_HOME.
type Engine struct {
	CLI    string // the pulumi binary
	Home   string // PULUMI_HOME
	Logs   string
	Stderr io.Writer
}

// SameFile tells whether a and b exist with the same contents.
func SameFile(a, b string) bool {
	x, err := os.ReadFile(a)
	if err != nil {
		return false
	}
	y, err := os.ReadFile(b)
	return err == nil && bytes.Equal(x, y)
}

func (e Engine) run(logName, failure string, args ...string) error {
	log := filepath.Join(e.Logs, logName)
	f, err := os.Create(log)
	if err != nil {
		return err
	}
	cmd := exec.Command(e.CLI, args...)
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Run()
	f.Close()
	if err != nil {
		if b, rerr := os.ReadFile(log); rerr == nil {
			e.Stderr.Write(b)
		}
		return fmt.Errorf("%s", failure)
	}
	return nil
}

// InstallPlugin installs bin as the resource plugin NAME at version, unless the
// plugin cache already holds the same binary.
func (e Engine) InstallPlugin(name, version, bin string) error {
	installed := filepath.Join(e.Home, "plugins", "resource-"+name+"-v"+version, "pulumi-resource-"+name)
	if SameFile(bin, installed) {
		return nil
	}
	return e.run("plugin-"+name+".log", fmt.Sprintf("pulumi plugin install resource %s %s failed", name, version),
		"plugin", "install", "resource", name, version, "--file", bin, "--reinstall")
}

// Login logs the CLI in to backend.
func (e Engine) Login(backend string) error {
	return e.run("pulumi-login.log", "pulumi login "+backend+" failed", "login", backend)
}
