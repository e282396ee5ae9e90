package main

// loopback-lb plays the cloud controller's part for Services of type
// LoadBalancer: it gives each one a loopback address in
// status.loadBalancer.ingress (an ip, as GKE does, or a hostname, as AWS
// does), and takes it away when the Service stops being a LoadBalancer.

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
)

type lbController struct {
	client kubernetes.Interface
	lister func(ns, name string) (*corev1.Service, error)
	queue  workqueue.TypedRateLimitingInterface[cache.ObjectName]
	want   corev1.LoadBalancerIngress
}

func runLoopbackLB() int {
	fs := flag.NewFlagSet("loopback-lb", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster")
	mode := fs.String("mode", "ip", "what to publish: ip (like GKE) or hostname (like AWS)")
	ip := fs.String("ip", "127.0.0.1", "loopback address published in ip mode")
	hostname := fs.String("hostname", "localhost", "name published in hostname mode (must resolve to loopback)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	var want corev1.LoadBalancerIngress
	switch *mode {
	case "ip":
		want.IP = *ip
		ipMode := corev1.LoadBalancerIPModeVIP
		want.IPMode = &ipMode
	case "hostname":
		want.Hostname = *hostname
	default:
		fmt.Fprintf(os.Stderr, "loopback-lb: --mode must be ip or hostname, got %q\n", *mode)
		return 2
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
	c := &lbController{
		client: client,
		lister: func(ns, name string) (*corev1.Service, error) { return services.Lister().Services(ns).Get(name) },
		queue:  workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]()),
		want:   want,
	}
	enqueue := func(obj interface{}) {
		if name, err := cache.DeletionHandlingObjectToName(obj); err == nil {
			c.queue.Add(name)
		}
	}
	if _, err := services.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj interface{}) { enqueue(obj) },
	}); err != nil {
		fmt.Fprintf(os.Stderr, "loopback-lb: %v\n", err)
		return 1
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), services.Informer().HasSynced) {
		fmt.Fprintln(os.Stderr, "loopback-lb: cache never synced")
		return 1
	}
	fmt.Printf("loopback-lb: publishing %s for LoadBalancer Services\n", describe(want))
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
	svc, err := c.lister(key.Namespace, key.Name)
	if err != nil {
		return nil // deleted: nothing to release on loopback
	}
	var desired []corev1.LoadBalancerIngress
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.LoadBalancerClass == nil {
		in := *c.want.DeepCopy()
		for _, p := range svc.Spec.Ports {
			in.Ports = append(in.Ports, corev1.PortStatus{Port: p.Port, Protocol: p.Protocol})
		}
		desired = []corev1.LoadBalancerIngress{in}
	} else if svc.Spec.LoadBalancerClass != nil {
		return nil // another controller's
	}
	if equalIngress(svc.Status.LoadBalancer.Ingress, desired) {
		return nil
	}
	updated := svc.DeepCopy()
	updated.Status.LoadBalancer.Ingress = desired
	_, err = c.client.CoreV1().Services(svc.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
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
