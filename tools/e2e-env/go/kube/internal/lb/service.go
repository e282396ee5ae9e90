package lb

import (
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// ServiceForwarding is what each of the Service's TCP ports forwards to: on every
// listening address, the ready endpoints of the slice port with the same
// name (the pods' target port), inside the allowed backend ranges.
func ServiceForwarding(svc *corev1.Service, slices []*discoveryv1.EndpointSlice, listen []netip.Addr, allowed []netip.Prefix) map[netip.AddrPort]Spec {
	var sources []netip.Prefix
	for _, r := range svc.Spec.LoadBalancerSourceRanges {
		if p, err := netip.ParsePrefix(strings.TrimSpace(r)); err == nil {
			sources = append(sources, p.Masked())
		}
	}
	want := map[netip.AddrPort]Spec{}
	for _, sp := range svc.Spec.Ports {
		if sp.Protocol != "" && sp.Protocol != corev1.ProtocolTCP {
			continue
		}
		var eps []Endpoint
		for _, sl := range slices {
			if sl.AddressType != discoveryv1.AddressTypeIPv4 && sl.AddressType != discoveryv1.AddressTypeIPv6 {
				continue
			}
			for _, port := range sl.Ports {
				if port.Port == nil || (port.Name != nil && *port.Name != sp.Name) || (port.Name == nil && sp.Name != "") {
					continue
				}
				if port.Protocol != nil && *port.Protocol != corev1.ProtocolTCP {
					continue
				}
				for _, e := range sl.Endpoints {
					ready := e.Conditions.Ready == nil || *e.Conditions.Ready
					serving := ready
					if e.Conditions.Serving != nil {
						serving = *e.Conditions.Serving
					}
					terminating := e.Conditions.Terminating != nil && *e.Conditions.Terminating
					for _, a := range e.Addresses {
						if ip, err := netip.ParseAddr(a); err == nil {
							eps = append(eps, Endpoint{Addr: netip.AddrPortFrom(ip, uint16(*port.Port)), Ready: ready, Serving: serving, Terminating: terminating})
						}
					}
				}
			}
		}
		backends := Select(eps, allowed)
		for _, a := range listen {
			want[netip.AddrPortFrom(a, uint16(sp.Port))] = Spec{Backends: backends, SourceRanges: sources}
		}
	}
	return want
}
