package main

// loopback-lb plays the cloud controller's part for Services of type
// LoadBalancer: it gives each one an address in status.loadBalancer.ingress
// (an ip of its own in a loopback range, as GKE gives each Service its own
// IP; or a hostname, as AWS does) and forwards each of the Service's TCP
// ports there to the Service's ready endpoints (internal/lb), following the
// EndpointSlices as pods come and go. It takes the address away when the
// Service stops being a LoadBalancer.

import (
	"context"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"

	"tfs-e2e/kube/internal/lb"
)

type lbController struct {
	client kubernetes.Interface
	lister func(ns, name string) (*corev1.Service, error)
	slices func(ns, name string) ([]*discoveryv1.EndpointSlice, error)
	queue  workqueue.TypedRateLimitingInterface[cache.ObjectName]
	// hostname is published in hostname mode; else each Service gets an
	// address from addrs.
	hostname string
	addrs    *lb.Allocator
	// backends: the only addresses ever dialled (the real node's pod subnet).
	backends []netip.Prefix
	table    *lb.Table
}

func runLoopbackLB() int {
	fs := flag.NewFlagSet("loopback-lb", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster")
	mode := fs.String("mode", "ip", "what to publish: ip (like GKE) or hostname (like AWS)")
	ipRange := fs.String("ip-range", "127.0.100.0/24", "loopback range of the addresses given in ip mode, one per Service")
	hostname := fs.String("hostname", "localhost", "name published in hostname mode (listens on 127.0.0.1 and ::1)")
	backendCIDRs := fs.String("backend-cidrs", "", "comma-separated ranges of endpoint addresses traffic may go to (the pod subnet); empty: publish addresses, forward nothing")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	c := &lbController{table: lb.NewTable(func(f string, a ...any) { fmt.Printf("loopback-lb: "+f+"\n", a...) })}
	switch *mode {
	case "ip":
		r, err := netip.ParsePrefix(*ipRange)
		if err != nil || !r.Addr().IsLoopback() {
			fmt.Fprintf(os.Stderr, "loopback-lb: --ip-range %q must be a loopback range\n", *ipRange)
			return 2
		}
		c.addrs = lb.NewAllocator(r)
	case "hostname":
		c.hostname = *hostname
	default:
		fmt.Fprintf(os.Stderr, "loopback-lb: --mode must be ip or hostname, got %q\n", *mode)
		return 2
	}
	for _, s := range strings.Split(*backendCIDRs, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "loopback-lb: --backend-cidrs: %v\n", err)
			return 2
		}
		c.backends = append(c.backends, p.Masked())
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loopback-lb: reading kubeconfig %q: %v\n", *kubeconfig, err)
		return 1
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loopback-lb: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	factory := informers.NewSharedInformerFactory(client, 10*time.Minute)
	services := factory.Core().V1().Services()
	endpointSlices := factory.Discovery().V1().EndpointSlices()
	c.client = client
	c.lister = func(ns, name string) (*corev1.Service, error) { return services.Lister().Services(ns).Get(name) }
	c.slices = func(ns, name string) ([]*discoveryv1.EndpointSlice, error) {
		return endpointSlices.Lister().EndpointSlices(ns).List(labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: name}))
	}
	c.queue = workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]())
	enqueue := func(obj interface{}) {
		if name, err := cache.DeletionHandlingObjectToName(obj); err == nil {
			c.queue.Add(name)
		}
	}
	// A slice change syncs the Service it belongs to.
	enqueueOwner := func(obj interface{}) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if s, ok := obj.(*discoveryv1.EndpointSlice); ok && s.Labels[discoveryv1.LabelServiceName] != "" {
			c.queue.Add(cache.ObjectName{Namespace: s.Namespace, Name: s.Labels[discoveryv1.LabelServiceName]})
		}
	}
	for inf, h := range map[cache.SharedIndexInformer]func(interface{}){services.Informer(): enqueue, endpointSlices.Informer(): enqueueOwner} {
		h := h
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    h,
			UpdateFunc: func(_, obj interface{}) { h(obj) },
			DeleteFunc: h,
		}); err != nil {
			fmt.Fprintf(os.Stderr, "loopback-lb: %v\n", err)
			return 1
		}
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), services.Informer().HasSynced, endpointSlices.Informer().HasSynced) {
		fmt.Fprintln(os.Stderr, "loopback-lb: cache never synced")
		return 1
	}
	c.adoptAddresses(services.Lister())
	defer c.table.Close()
	if c.addrs != nil {
		fmt.Printf("loopback-lb: publishing an ip of %s per LoadBalancer Service; forwarding to endpoints in %v\n", *ipRange, c.backends)
	} else {
		fmt.Printf("loopback-lb: publishing hostname %s for LoadBalancer Services; forwarding to endpoints in %v\n", c.hostname, c.backends)
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	for c.next(ctx) {
	}
	return 0
}

func describe(in corev1.LoadBalancerIngress) string {
	if in.Hostname != "" {
		return "hostname " + in.Hostname
	}
	return "ip " + in.IP
}

// adoptAddresses gives back, before anything new is handed out, the
// addresses a previous run of the controller published.
func (c *lbController) adoptAddresses(services interface {
	List(labels.Selector) ([]*corev1.Service, error)
}) {
	if c.addrs == nil {
		return
	}
	all, _ := services.List(labels.Everything())
	for _, svc := range all {
		if !ours(svc) || len(svc.Status.LoadBalancer.Ingress) == 0 {
			continue
		}
		if ip, err := netip.ParseAddr(svc.Status.LoadBalancer.Ingress[0].IP); err == nil {
			_, _ = c.addrs.Assign(svc.Namespace+"/"+svc.Name, ip)
		}
	}
}

func ours(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.LoadBalancerClass == nil
}

func (c *lbController) next(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.sync(ctx, key); err != nil {
		fmt.Fprintf(os.Stderr, "loopback-lb: %s: %v (will retry)\n", key, err)
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

func (c *lbController) sync(ctx context.Context, key cache.ObjectName) error {
	owner := key.Namespace + "/" + key.Name
	svc, err := c.lister(key.Namespace, key.Name)
	if err != nil || !ours(svc) {
		c.logChanges(owner, c.table.Forget(owner))
		if c.addrs != nil {
			c.addrs.Release(owner)
		}
		if err != nil || svc.Spec.LoadBalancerClass != nil {
			return nil // deleted, or another controller's
		}
		return c.publish(ctx, svc, nil)
	}
	in := corev1.LoadBalancerIngress{Hostname: c.hostname}
	listen := []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}
	if c.addrs != nil {
		var current netip.Addr
		if len(svc.Status.LoadBalancer.Ingress) > 0 {
			current, _ = netip.ParseAddr(svc.Status.LoadBalancer.Ingress[0].IP)
		}
		addr, err := c.addrs.Assign(owner, current)
		if err != nil {
			return err
		}
		in.IP = addr.String()
		ipMode := corev1.LoadBalancerIPModeVIP
		in.IPMode = &ipMode
		listen = []netip.Addr{addr}
	}
	for _, p := range svc.Spec.Ports {
		in.Ports = append(in.Ports, corev1.PortStatus{Port: p.Port, Protocol: p.Protocol})
	}
	if err := c.publish(ctx, svc, []corev1.LoadBalancerIngress{in}); err != nil {
		return err
	}
	slices, err := c.slices(key.Namespace, key.Name)
	if err != nil {
		return err
	}
	want := lb.ServiceForwarding(svc, slices, listen, c.backends)
	changes, err := c.table.Sync(owner, want)
	c.logChanges(owner, changes)
	return err
}

func (c *lbController) logChanges(owner string, changes []string) {
	for _, ch := range changes {
		fmt.Printf("loopback-lb: %s: %s\n", owner, ch)
	}
}

// publish writes the Service's load balancer status when it differs.
func (c *lbController) publish(ctx context.Context, svc *corev1.Service, desired []corev1.LoadBalancerIngress) error {
	if equalIngress(svc.Status.LoadBalancer.Ingress, desired) {
		return nil
	}
	updated := svc.DeepCopy()
	updated.Status.LoadBalancer.Ingress = desired
	_, err := c.client.CoreV1().Services(svc.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err == nil {
		what := "no address"
		if len(desired) > 0 {
			what = describe(desired[0])
		}
		fmt.Printf("loopback-lb: %s/%s -> %s\n", svc.Namespace, svc.Name, what)
	}
	return err
}

func equalIngress(a, b []corev1.LoadBalancerIngress) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].IP != b[i].IP || a[i].Hostname != b[i].Hostname || len(a[i].Ports) != len(b[i].Ports) {
			return false
		}
		for j := range a[i].Ports {
			if a[i].Ports[j].Port != b[i].Ports[j].Port || a[i].Ports[j].Protocol != b[i].Ports[j].Protocol {
				return false
			}
		}
	}
	return true
}
