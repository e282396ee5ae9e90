package pki

import (
	"bytes"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestEnsure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	if err := Ensure(dir, "tfs-e2e-cpu"); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dir, "apiserver", x509.ExtKeyUsageServerAuth); err != nil {
		t.Fatal(err)
	}
	ca, _ := LoadCert(filepath.Join(dir, "ca.crt"))
	if !ca.IsCA || ca.Subject.CommonName != "tfs-e2e-ca" {
		t.Fatalf("CA: IsCA %v, subject %s", ca.IsCA, ca.Subject)
	}
	api, _ := LoadCert(filepath.Join(dir, "apiserver.crt"))
	if err := api.VerifyHostname("kubernetes.default.svc.cluster.local"); err != nil {
		t.Error(err)
	}
	for _, ip := range []string{"127.0.0.1", "10.96.0.1", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"} {
		if err := api.VerifyHostname(ip); err != nil {
			t.Error(err)
		}
	}
	if api.Subject.CommonName != "kube-apiserver" || api.IsCA {
		t.Errorf("apiserver: %s, IsCA %v", api.Subject, api.IsCA)
	}
	if api.KeyUsage != x509.KeyUsageDigitalSignature|x509.KeyUsageKeyEncipherment {
		t.Errorf("apiserver key usage %v", api.KeyUsage)
	}
	want := map[string][2]string{
		"admin":                    {"system:masters", "tfs-e2e-admin"},
		"controller-manager":       {"", "system:kube-controller-manager"},
		"scheduler":                {"", "system:kube-scheduler"},
		"kubelet":                  {"system:nodes", "system:node:tfs-e2e-cpu"},
		"apiserver-kubelet-client": {"system:masters", "kube-apiserver-kubelet-client"},
		"front-proxy-client":       {"", "front-proxy-client"},
	}
	for name, w := range want {
		if err := Verify(dir, name, x509.ExtKeyUsageClientAuth); err != nil {
			t.Error(err)
			continue
		}
		if err := Verify(dir, name, x509.ExtKeyUsageServerAuth); err == nil {
			t.Errorf("%s verifies for server auth", name)
		}
		c, _ := LoadCert(filepath.Join(dir, name+".crt"))
		var org string
		if len(c.Subject.Organization) > 0 {
			org = c.Subject.Organization[0]
		}
		if got := [2]string{org, c.Subject.CommonName}; got != w {
			t.Errorf("%s: O=%q CN=%q, want %q", name, got[0], got[1], w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sa.pub")); err != nil {
		t.Fatal(err)
	}
	sa, err := LoadKey(filepath.Join(dir, "sa.key"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := readPEM(filepath.Join(dir, "sa.pub"))
	pub, err := x509.ParsePKIXPublicKey(p.Bytes)
	if err != nil || !reflect.DeepEqual(pub, sa.Public()) {
		t.Fatalf("sa.pub is not sa.key's public key (%v)", err)
	}
	keys, _ := filepath.Glob(filepath.Join(dir, "*.key"))
	if len(keys) != 9 {
		t.Errorf("%d keys: %v", len(keys), keys)
	}
	for _, k := range keys {
		st, _ := os.Stat(k)
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v", k, st.Mode().Perm())
		}
	}
}

func TestEnsureKeepsExistingFiles(t *testing.T) {
	dir := t.TempDir()
	if err := Ensure(dir, "n"); err != nil {
		t.Fatal(err)
	}
	read := func(n string) []byte { b, _ := os.ReadFile(filepath.Join(dir, n)); return b }
	before := map[string][]byte{}
	for _, n := range []string{"ca.crt", "ca.key", "apiserver.crt", "admin.key", "sa.key", "kubelet.crt"} {
		before[n] = read(n)
	}
	// A folder made before the kubelet's identities: only those are added.
	os.Remove(filepath.Join(dir, "kubelet.crt"))
	os.Remove(filepath.Join(dir, "kubelet.key"))
	if err := Ensure(dir, "n"); err != nil {
		t.Fatal(err)
	}
	for n, b := range before {
		if n == "kubelet.crt" {
			if bytes.Equal(read(n), b) {
				t.Error("kubelet.crt was not made again")
			}
			continue
		}
		if !bytes.Equal(read(n), b) {
			t.Errorf("%s changed", n)
		}
	}
	if err := Verify(dir, "kubelet", x509.ExtKeyUsageClientAuth); err != nil {
		t.Fatal(err)
	}
}

func TestEnsureServing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	if err := Ensure(dir, "n"); err != nil {
		t.Fatal(err)
	}
	dns := []string{"metrics-server.kube-system.svc"}
	ips := []net.IP{net.ParseIP("10.213.0.1")}
	if err := EnsureServing(dir, "aggregated", dns, ips); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dir, "aggregated", x509.ExtKeyUsageServerAuth); err != nil {
		t.Fatal(err)
	}
	c, _ := LoadCert(filepath.Join(dir, "aggregated.crt"))
	for _, h := range []string{"metrics-server.kube-system.svc", "10.213.0.1"} {
		if err := c.VerifyHostname(h); err != nil {
			t.Error(err)
		}
	}
	// The same names: kept. Another address: made again.
	if err := EnsureServing(dir, "aggregated", dns, ips); err != nil {
		t.Fatal(err)
	}
	if again, _ := LoadCert(filepath.Join(dir, "aggregated.crt")); again.SerialNumber.Cmp(c.SerialNumber) != 0 {
		t.Error("a certificate with the same names was made again")
	}
	if err := EnsureServing(dir, "aggregated", dns, []net.IP{net.ParseIP("10.214.0.1")}); err != nil {
		t.Fatal(err)
	}
	moved, _ := LoadCert(filepath.Join(dir, "aggregated.crt"))
	if err := moved.VerifyHostname("10.214.0.1"); err != nil {
		t.Error(err)
	}
}
