package lb

import (
	"net/netip"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func ptr[T any](v T) *T { return &v }

func service() *corev1.Service {
	return &corev1.Service{Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeLoadBalancer,
		Ports: []corev1.ServicePort{
			{Name: "grpc", Port: 8500, TargetPort: intstr.FromString("grpc"), Protocol: corev1.ProtocolTCP},
			{Name: "http", Port: 8501, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP},
		},
		LoadBalancerSourceRanges: []string{"127.0.0.0/8"},
	}}
}

func endpoint(ip string, ready, serving, terminating bool) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{
		Ready: &ready, Serving: &serving, Terminating: &terminating,
	}}
}

func slice(eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{
			{Name: ptr("http"), Port: ptr(int32(8501)), Protocol: ptr(corev1.ProtocolTCP)},
			{Name: ptr("grpc"), Port: ptr(int32(8500)), Protocol: ptr(corev1.ProtocolTCP)},
		},
		Endpoints: eps,
	}
}

var lbIP = []netip.Addr{netip.MustParseAddr("127.0.100.1")}

func TestServiceForwardingFollowsARollout(t *testing.T) {
	// Mid-rollout: the old pod is terminating (in its preStop pause, still
	// serving), the new one is ready, a third is still starting.
	want := ServiceForwarding(service(), []*discoveryv1.EndpointSlice{slice(
		endpoint("10.213.0.2", false, true, true),
		endpoint("10.213.0.3", true, true, false),
		endpoint("10.213.0.4", false, false, false),
	)}, lbIP, podSubnet)
	http := want[ap("127.0.100.1:8501")]
	if !reflect.DeepEqual(http.Backends, []netip.AddrPort{ap("10.213.0.3:8501")}) {
		t.Fatalf("http backends %v", http.Backends)
	}
	if grpc := want[ap("127.0.100.1:8500")]; !reflect.DeepEqual(grpc.Backends, []netip.AddrPort{ap("10.213.0.3:8500")}) {
		t.Fatalf("grpc backends %v", grpc.Backends)
	}
	if !reflect.DeepEqual(http.SourceRanges, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}) {
		t.Fatalf("source ranges %v", http.SourceRanges)
	}
	if len(want) != 2 {
		t.Fatalf("listens on %v", want)
	}
}

func TestServiceForwardingNilConditionsMeanReady(t *testing.T) {
	s := slice(discoveryv1.Endpoint{Addresses: []string{"10.213.0.9"}})
	want := ServiceForwarding(service(), []*discoveryv1.EndpointSlice{s}, lbIP, podSubnet)
	if b := want[ap("127.0.100.1:8501")].Backends; !reflect.DeepEqual(b, []netip.AddrPort{ap("10.213.0.9:8501")}) {
		t.Fatalf("backends %v", b)
	}
}

func TestServiceForwardingIgnoresSimulatedPodsAndOtherProtocols(t *testing.T) {
	svc := service()
	svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP})
	want := ServiceForwarding(svc, []*discoveryv1.EndpointSlice{slice(endpoint("10.0.0.5", true, true, false))}, lbIP, podSubnet)
	if len(want) != 2 {
		t.Fatalf("listens on %v", want)
	}
	for addr, spec := range want {
		if len(spec.Backends) != 0 {
			t.Fatalf("%v forwards to a kwok pod: %v", addr, spec.Backends)
		}
	}
}
