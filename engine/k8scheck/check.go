package k8scheck

import (
	"fmt"
	"net"
	"sort"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Want is what the manifest is meant to run, which Kubernetes cannot know.
type Want struct {
	// Pods is, per Job name, how many pods that Job runs, all at once:
	// its completions and its parallelism. When set, a Job not named
	// here, or named and missing, is a problem.
	Pods map[string]int
}

// Need is an object the manifest refers to but does not hold (a Secret
// made by hand with kubectl): the pods that refer to it do not start
// until it exists with these keys.
type Need struct {
	Kind, Namespace, Name string
	Keys                  []string // sorted; empty when only the object is referred to
}

func (n Need) String() string {
	s := n.Kind + " " + n.Name
	if n.Namespace != "" {
		s = n.Kind + " " + n.Namespace + "/" + n.Name
	}
	if len(n.Keys) > 0 {
		s += " with keys " + strings.Join(n.Keys, ", ")
	}
	return s
}

// Problems is every problem Check found, one per line, each naming its
// object and field.
type Problems []string

func (p Problems) Error() string { return strings.Join(p, "\n") }

// Check checks m as a whole and against want. It returns the objects m
// refers to without holding them, and Problems (nil when there are none).
func Check(m *Manifest, want Want) ([]Need, error) {
	c := &checker{m: m, needs: map[needKey]map[string]bool{}}
	c.names()
	for i := range m.Secrets {
		c.secret(&m.Secrets[i])
	}
	for i := range m.ConfigMaps {
		c.configMap(&m.ConfigMaps[i])
	}
	for i := range m.Jobs {
		c.job(&m.Jobs[i], want)
	}
	for i := range m.Services {
		c.service(&m.Services[i])
	}
	if want.Pods != nil {
		names := make([]string, 0, len(want.Pods))
		for n := range want.Pods {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if c.findJob(n) == nil {
				c.problems = append(c.problems, fmt.Sprintf("Job %s: missing; the manifest should run it with %d pods", n, want.Pods[n]))
			}
		}
	}
	if len(c.problems) == 0 {
		return c.needList(), nil
	}
	return c.needList(), c.problems
}

type needKey struct{ kind, ns, name string }

type checker struct {
	m        *Manifest
	problems Problems
	needs    map[needKey]map[string]bool
}

func (c *checker) add(obj string, errs field.ErrorList) {
	for _, e := range errs {
		c.problems = append(c.problems, obj+": "+e.Error())
	}
}

func (c *checker) needList() []Need {
	var out []Need
	for k, keys := range c.needs {
		n := Need{Kind: k.kind, Namespace: k.ns, Name: k.name}
		for key := range keys {
			n.Keys = append(n.Keys, key)
		}
		sort.Strings(n.Keys)
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// sameNamespace: an object without a namespace goes to kubectl's current
// one, which may be any.
func sameNamespace(a, b string) bool { return a == "" || b == "" || a == b }

// meta checks an object's metadata as the API server does on create.
// An empty namespace is kubectl's current one, so it is checked as a
// valid one.
func meta(om metav1.ObjectMeta, nameFn apivalidation.ValidateNameFunc) field.ErrorList {
	if om.Namespace == "" {
		om.Namespace = "default"
	}
	return apivalidation.ValidateObjectMeta(&om, true, nameFn, field.NewPath("metadata"))
}

// names checks every object's metadata, and that no two objects of a kind
// share a name (the second would replace the first).
func (c *checker) names() {
	seen := map[needKey]bool{}
	dup := func(kind string, om metav1.ObjectMeta) {
		k := needKey{kind, om.Namespace, om.Name}
		if seen[k] {
			c.problems = append(c.problems, fmt.Sprintf("%s %s: two objects of this kind and name; the second replaces the first", kind, om.Name))
		}
		seen[k] = true
	}
	for _, o := range c.m.Services {
		dup("Service", o.ObjectMeta)
		// Services are DNS names of their own: a DNS-1035 label.
		c.add("Service "+o.Name, meta(o.ObjectMeta, apivalidation.NameIsDNS1035Label))
	}
	for _, o := range c.m.Jobs {
		dup("Job", o.ObjectMeta)
		// The API server takes a DNS subdomain, but the Job's name becomes
		// its pods' job-name label and hostname prefix: a DNS label is what
		// works.
		c.add("Job "+o.Name, meta(o.ObjectMeta, apivalidation.NameIsDNSLabel))
	}
	for _, o := range c.m.Secrets {
		dup("Secret", o.ObjectMeta)
		c.add("Secret "+o.Name, meta(o.ObjectMeta, apivalidation.NameIsDNSSubdomain))
	}
	for _, o := range c.m.ConfigMaps {
		dup("ConfigMap", o.ObjectMeta)
		c.add("ConfigMap "+o.Name, meta(o.ObjectMeta, apivalidation.NameIsDNSSubdomain))
	}
}

func (c *checker) secret(s *corev1.Secret) {
	var errs field.ErrorList
	for k := range s.Data {
		errs = append(errs, keyErrs(k, field.NewPath("data").Key(k))...)
	}
	for k := range s.StringData {
		errs = append(errs, keyErrs(k, field.NewPath("stringData").Key(k))...)
	}
	c.add("Secret "+s.Name, errs)
}

func (c *checker) configMap(cm *corev1.ConfigMap) {
	var errs field.ErrorList
	for k := range cm.Data {
		errs = append(errs, keyErrs(k, field.NewPath("data").Key(k))...)
	}
	for k := range cm.BinaryData {
		p := field.NewPath("binaryData").Key(k)
		errs = append(errs, keyErrs(k, p)...)
		if _, ok := cm.Data[k]; ok {
			errs = append(errs, field.Invalid(p, k, "duplicate of key present in data"))
		}
	}
	c.add("ConfigMap "+cm.Name, errs)
}

func keyErrs(k string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsConfigMapKey(k) {
		errs = append(errs, field.Invalid(p, k, msg))
	}
	return errs
}

// secretKeys and configMapKeys are the keys of the named object in ns,
// and whether the manifest holds it.
func (c *checker) secretKeys(ns, name string) (map[string]bool, bool) {
	for _, s := range c.m.Secrets {
		if s.Name == name && sameNamespace(ns, s.Namespace) {
			keys := map[string]bool{}
			for k := range s.Data {
				keys[k] = true
			}
			for k := range s.StringData {
				keys[k] = true
			}
			return keys, true
		}
	}
	return nil, false
}

func (c *checker) configMapKeys(ns, name string) (map[string]bool, bool) {
	for _, cm := range c.m.ConfigMaps {
		if cm.Name == name && sameNamespace(ns, cm.Namespace) {
			keys := map[string]bool{}
			for k := range cm.Data {
				keys[k] = true
			}
			for k := range cm.BinaryData {
				keys[k] = true
			}
			return keys, true
		}
	}
	return nil, false
}

func (c *checker) findJob(name string) *batchv1.Job {
	for i := range c.m.Jobs {
		if c.m.Jobs[i].Name == name {
			return &c.m.Jobs[i]
		}
	}
	return nil
}

func (c *checker) job(j *batchv1.Job, want Want) {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	s := j.Spec
	for _, f := range []struct {
		v *int32
		p *field.Path
	}{{s.Parallelism, spec.Child("parallelism")}, {s.Completions, spec.Child("completions")}, {s.BackoffLimit, spec.Child("backoffLimit")}} {
		if f.v != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*f.v), f.p)...)
		}
	}
	indexed := false
	if s.CompletionMode != nil {
		switch *s.CompletionMode {
		case batchv1.IndexedCompletion:
			indexed = true
			if s.Completions == nil {
				errs = append(errs, field.Required(spec.Child("completions"), "when completionMode is Indexed"))
			}
			// The Job controller tracks an Indexed Job's indexes in its
			// status; the API server caps them.
			for _, f := range []struct {
				v *int32
				p *field.Path
			}{{s.Completions, spec.Child("completions")}, {s.Parallelism, spec.Child("parallelism")}} {
				if f.v != nil && *f.v > maxIndexed {
					errs = append(errs, field.Invalid(f.p, *f.v, fmt.Sprintf("must be less than or equal to %d when completionMode is Indexed", maxIndexed)))
				}
			}
		case batchv1.NonIndexedCompletion:
		default:
			errs = append(errs, field.NotSupported(spec.Child("completionMode"), *s.CompletionMode,
				[]batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion}))
		}
	}
	// The API server makes the selector itself (from the Job's uid) unless
	// manualSelector says it is given; a given one must select the pods.
	tl := s.Template.Labels
	if s.Selector != nil {
		if s.ManualSelector == nil || !*s.ManualSelector {
			errs = append(errs, field.Invalid(spec.Child("selector"), metav1.FormatLabelSelector(s.Selector),
				"`selector` not auto-generated: leave it out, or set manualSelector"))
		}
		errs = append(errs, selectorErrs(s.Selector, tl, spec.Child("selector"))...)
	} else if s.ManualSelector != nil && *s.ManualSelector {
		errs = append(errs, field.Required(spec.Child("selector"), "when manualSelector is true"))
	}
	tp := spec.Child("template")
	errs = append(errs, metavalidation.ValidateLabels(tl, tp.Child("metadata", "labels"))...)
	errs = append(errs, apivalidation.ValidateAnnotations(s.Template.Annotations, tp.Child("metadata", "annotations"))...)
	switch rp := s.Template.Spec.RestartPolicy; rp {
	case corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure:
	default:
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), rp,
			[]corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	}
	errs = append(errs, c.pod(&s.Template.Spec, j.Namespace, indexed, tp.Child("spec"))...)
	if want.Pods != nil {
		n, ok := want.Pods[j.Name]
		switch {
		case !ok:
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"), "not a Job the manifest should run"))
		default:
			if s.Completions == nil || int(*s.Completions) != n {
				errs = append(errs, field.Invalid(spec.Child("completions"), ptrString(s.Completions), fmt.Sprintf("want %d: one completion per pod wanted", n)))
			}
			if s.Parallelism == nil || int(*s.Parallelism) != n {
				errs = append(errs, field.Invalid(spec.Child("parallelism"), ptrString(s.Parallelism), fmt.Sprintf("want %d: every pod wanted runs at once", n)))
			}
		}
	}
	c.add("Job "+j.Name, errs)
}

// maxIndexed is the most completions and parallelism the API server takes
// for an Indexed Job.
const maxIndexed = 100000

func ptrString(p *int32) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// selectorErrs checks sel is valid and selects pods labelled labels.
func selectorErrs(sel *metav1.LabelSelector, labels map[string]string, p *field.Path) field.ErrorList {
	errs := metavalidation.ValidateLabelSelector(sel, metavalidation.LabelSelectorValidationOptions{}, p)
	if len(errs) > 0 {
		return errs
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return field.ErrorList{field.Invalid(p, metav1.FormatLabelSelector(sel), err.Error())}
	}
	if s.Empty() {
		return field.ErrorList{field.Required(p, "an empty selector selects every pod of the namespace")}
	}
	if !s.Matches(k8slabels.Set(labels)) {
		return field.ErrorList{field.Invalid(p, metav1.FormatLabelSelector(sel), "`selector` does not match template `labels`")}
	}
	return nil
}

func (c *checker) service(svc *corev1.Service) {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	s := svc.Spec
	headless := s.ClusterIP == corev1.ClusterIPNone
	if s.ClusterIP != "" && !headless && net.ParseIP(s.ClusterIP) == nil {
		errs = append(errs, field.Invalid(spec.Child("clusterIP"), s.ClusterIP, `must be "None", empty or an IP address`))
	}
	if len(s.Ports) == 0 && !headless {
		errs = append(errs, field.Required(spec.Child("ports"), "a Service that is not headless needs a port"))
	}
	names := map[string]bool{}
	for i, sp := range s.Ports {
		p := spec.Child("ports").Index(i)
		if len(s.Ports) > 1 && sp.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), "when a Service has more than one port"))
		}
		if sp.Name != "" {
			for _, msg := range validation.IsDNS1123Label(sp.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), sp.Name, msg))
			}
			if names[sp.Name] {
				errs = append(errs, field.Duplicate(p.Child("name"), sp.Name))
			}
			names[sp.Name] = true
		}
		errs = append(errs, portErrs(int(sp.Port), p.Child("port"))...)
		errs = append(errs, protocolErrs(sp.Protocol, p.Child("protocol"))...)
		errs = append(errs, targetPortErrs(sp.TargetPort, p.Child("targetPort"))...)
	}
	errs = append(errs, metavalidation.ValidateLabels(s.Selector, spec.Child("selector"))...)
	errs = append(errs, c.selects(svc)...)
	c.add("Service "+svc.Name, errs)
}

// selects checks the Service reaches the pods it is for: it selects some
// pod of the manifest, every pod whose subdomain names it (else the pod's
// hostname gets no DNS record), and only pods that listen on its target
// ports.
func (c *checker) selects(svc *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	sel := field.NewPath("spec", "selector")
	if len(svc.Spec.Selector) == 0 {
		// Endpoints made by hand: nothing to check against the pods.
		return nil
	}
	selected := 0
	for _, j := range c.m.Jobs {
		if !sameNamespace(svc.Namespace, j.Namespace) {
			continue
		}
		pod := j.Spec.Template
		if !matches(svc.Spec.Selector, pod.Labels) {
			if pod.Spec.Subdomain == svc.Name {
				errs = append(errs, field.Invalid(sel, svc.Spec.Selector,
					fmt.Sprintf("does not select the pods of Job %s, whose subdomain names this Service (labels %v)", j.Name, pod.Labels)))
			}
			continue
		}
		selected++
		for i, sp := range svc.Spec.Ports {
			tp := sp.TargetPort
			if tp.Type == intstr.Int && tp.IntVal == 0 {
				tp = intstr.FromInt32(sp.Port)
			}
			if !podListens(&pod.Spec, tp, sp.Protocol) {
				errs = append(errs, field.Invalid(field.NewPath("spec", "ports").Index(i).Child("targetPort"), tp.String(),
					fmt.Sprintf("selected pods of Job %s have no container port %s", j.Name, tp.String())))
			}
		}
	}
	if selected == 0 {
		errs = append(errs, field.Invalid(sel, svc.Spec.Selector, "selects no pod of the manifest"))
	}
	return errs
}

func matches(sel, labels map[string]string) bool {
	for k, v := range sel {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	return true
}

func podListens(ps *corev1.PodSpec, tp intstr.IntOrString, proto corev1.Protocol) bool {
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	for _, ct := range ps.Containers {
		for _, cp := range ct.Ports {
			cproto := cp.Protocol
			if cproto == "" {
				cproto = corev1.ProtocolTCP
			}
			if cproto != proto {
				continue
			}
			if (tp.Type == intstr.Int && cp.ContainerPort == tp.IntVal) || (tp.Type == intstr.String && cp.Name == tp.StrVal) {
				return true
			}
		}
	}
	return false
}

func portErrs(n int, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidPortNum(n) {
		errs = append(errs, field.Invalid(p, n, msg))
	}
	return errs
}

func protocolErrs(proto corev1.Protocol, p *field.Path) field.ErrorList {
	switch proto {
	case "", corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
		return nil
	}
	return field.ErrorList{field.NotSupported(p, proto, []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP})}
}

func targetPortErrs(tp intstr.IntOrString, p *field.Path) field.ErrorList {
	if tp.Type == intstr.String {
		var errs field.ErrorList
		for _, msg := range validation.IsValidPortName(tp.StrVal) {
			errs = append(errs, field.Invalid(p, tp.StrVal, msg))
		}
		return errs
	}
	if tp.IntVal == 0 { // unset: the port itself
		return nil
	}
	return portErrs(int(tp.IntVal), p)
}
