// Package pki makes the environment's certificates under $STATE/pki: a CA, the
// API server's serving certificate, client certificates for the admin, the
// controller manager, the scheduler, the kubelet and the API server (as the
// kubelet's client), and the service-account key pair. PEM files; keys are
// PKCS#8, mode 0600. Files already there are kept (a state folder made by the
// shell version of scripts/e2e-env works as it is).
package pki

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

const validity = 3650 * 24 * time.Hour

// APIServerSANs are the API server certificate's names: loopback, the
// kubernetes Service's cluster IP and its DNS names.
var (
	APIServerIPs = []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")}
	APIServerDNS = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}
)

// Client is a client certificate's file name and subject.
type Client struct {
	Name, Organization, CommonName string
}

// Clients are the client certificates made with the CA; cpuNode is the real
// node's name (its kubelet is system:node:NAME).
func Clients(cpuNode string) []Client {
	return []Client{
		{"admin", "system:masters", "tfs-e2e-admin"},
		{"controller-manager", "", "system:kube-controller-manager"},
		{"scheduler", "", "system:kube-scheduler"},
		{"kubelet", "system:nodes", "system:node:" + cpuNode},
		{"apiserver-kubelet-client", "system:masters", "kube-apiserver-kubelet-client"},
		// The aggregation layer's identity towards the aggregated API servers
		// (metrics-server, prometheus-adapter): its CN is the API server's
		// --requestheader-allowed-names.
		{"front-proxy-client", "", FrontProxyClientCN},
	}
}

// FrontProxyClientCN is the front-proxy client certificate's common name.
const FrontProxyClientCN = "front-proxy-client"

func newKey() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) }

func writeKey(path string, key *rsa.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(path, "PRIVATE KEY", der, 0o600)
}

// writePEM writes through a temporary file, so a file is there whole or not at all.
func writePEM(path, typ string, der []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readPEM(path string) (*pem.Block, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, _ := pem.Decode(b)
	if p == nil {
		return nil, fmt.Errorf("%s: no PEM block", path)
	}
	return p, nil
}

// LoadKey reads a PKCS#8 or PKCS#1 RSA private key.
func LoadKey(path string) (crypto.Signer, error) {
	p, err := readPEM(path)
	if err != nil {
		return nil, err
	}
	switch p.Type {
	case "RSA PRIVATE KEY":
		return x509.ParsePKCS1PrivateKey(p.Bytes)
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(p.Bytes)
		if err != nil {
			return nil, err
		}
		s, ok := k.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("%s: not a signing key", path)
		}
		return s, nil
	}
	return nil, fmt.Errorf("%s: unexpected PEM block %q", path, p.Type)
}

// LoadCert reads a certificate.
func LoadCert(path string) (*x509.Certificate, error) {
	p, err := readPEM(path)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(p.Bytes)
}

func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// sign writes NAME.key and NAME.crt, a certificate from template signed by the CA.
func sign(dir, name string, template *x509.Certificate, ca *x509.Certificate, caKey crypto.Signer) error {
	key, err := newKey()
	if err != nil {
		return err
	}
	if template.SerialNumber, err = serial(); err != nil {
		return err
	}
	now := time.Now()
	template.NotBefore, template.NotAfter = now.Add(-time.Hour), now.Add(validity)
	template.BasicConstraintsValid = true
	template.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	if err := writeKey(filepath.Join(dir, name+".key"), key); err != nil {
		return err
	}
	return writePEM(filepath.Join(dir, name+".crt"), "CERTIFICATE", der, 0o644)
}

// Ensure makes what is missing under dir. The CA, the API server's and the
// first three clients' certificates and the service-account keys are made
// together, once (marked by the file "done"); the later clients (the kubelet's
// two identities, the front proxy's) are added to a folder made before them.
func Ensure(dir, cpuNode string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	clients := Clients(cpuNode)
	first := !exists(filepath.Join(dir, "done"))
	if first {
		caKey, err := newKey()
		if err != nil {
			return err
		}
		sn, err := serial()
		if err != nil {
			return err
		}
		now := time.Now()
		tmpl := &x509.Certificate{
			SerialNumber: sn, Subject: pkix.Name{CommonName: "tfs-e2e-ca"},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(validity),
			IsCA: true, BasicConstraintsValid: true,
			KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &caKey.PublicKey, caKey)
		if err != nil {
			return err
		}
		if err := writeKey(filepath.Join(dir, "ca.key"), caKey); err != nil {
			return err
		}
		if err := writePEM(filepath.Join(dir, "ca.crt"), "CERTIFICATE", der, 0o644); err != nil {
			return err
		}
		sa, err := newKey()
		if err != nil {
			return err
		}
		if err := writeKey(filepath.Join(dir, "sa.key"), sa); err != nil {
			return err
		}
		pub, err := x509.MarshalPKIXPublicKey(&sa.PublicKey)
		if err != nil {
			return err
		}
		if err := writePEM(filepath.Join(dir, "sa.pub"), "PUBLIC KEY", pub, 0o644); err != nil {
			return err
		}
	}
	ca, caKey, err := loadCA(dir)
	if err != nil {
		return err
	}
	if first {
		err := sign(dir, "apiserver", &x509.Certificate{
			Subject:     pkix.Name{CommonName: "kube-apiserver"},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			IPAddresses: APIServerIPs, DNSNames: APIServerDNS,
		}, ca, caKey)
		if err != nil {
			return err
		}
	}
	for i, c := range clients {
		if i < 3 && !first {
			continue
		}
		if i >= 3 && exists(filepath.Join(dir, c.Name+".crt")) {
			continue
		}
		subject := pkix.Name{CommonName: c.CommonName}
		if c.Organization != "" {
			subject.Organization = []string{c.Organization}
		}
		err := sign(dir, c.Name, &x509.Certificate{Subject: subject, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, ca, caKey)
		if err != nil {
			return err
		}
	}
	if first {
		f, err := os.Create(filepath.Join(dir, "done"))
		if err != nil {
			return err
		}
		return f.Close()
	}
	return nil
}

// loadCA reads the CA's certificate and key from dir.
func loadCA(dir string) (*x509.Certificate, crypto.Signer, error) {
	ca, err := LoadCert(filepath.Join(dir, "ca.crt"))
	if err != nil {
		return nil, nil, err
	}
	key, err := LoadKey(filepath.Join(dir, "ca.key"))
	if err != nil {
		return nil, nil, err
	}
	return ca, key, nil
}

// EnsureServing makes NAME.crt and NAME.key, a serving certificate from the CA
// for dns and ips, unless the one there already names exactly those (a
// changed TFS_E2E_POD_SUBNET moves the address it is served on).
func EnsureServing(dir, name string, dns []string, ips []net.IP) error {
	if c, err := LoadCert(filepath.Join(dir, name+".crt")); err == nil && exists(filepath.Join(dir, name+".key")) && sameNames(c, dns, ips) {
		return nil
	}
	ca, caKey, err := loadCA(dir)
	if err != nil {
		return err
	}
	return sign(dir, name, &x509.Certificate{
		Subject:     pkix.Name{CommonName: name},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: ips, DNSNames: dns,
	}, ca, caKey)
}

func sameNames(c *x509.Certificate, dns []string, ips []net.IP) bool {
	if len(c.DNSNames) != len(dns) || len(c.IPAddresses) != len(ips) {
		return false
	}
	for i := range dns {
		if c.DNSNames[i] != dns[i] {
			return false
		}
	}
	for i := range ips {
		if !c.IPAddresses[i].Equal(ips[i]) {
			return false
		}
	}
	return true
}

// Verify checks that NAME.crt chains to the CA for usage and matches NAME.key.
func Verify(dir, name string, usage x509.ExtKeyUsage) error {
	ca, err := LoadCert(filepath.Join(dir, "ca.crt"))
	if err != nil {
		return err
	}
	c, err := LoadCert(filepath.Join(dir, name+".crt"))
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := c.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
		return fmt.Errorf("%s.crt: %w", name, err)
	}
	k, err := LoadKey(filepath.Join(dir, name+".key"))
	if err != nil {
		return err
	}
	pub, ok := k.Public().(*rsa.PublicKey)
	if !ok || !pub.Equal(c.PublicKey) {
		return errors.New(name + ".key does not match " + name + ".crt")
	}
	return nil
}
