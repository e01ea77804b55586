package k8scheck

import (
	"fmt"
	"reflect"
	"regexp"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// pod checks a Job's pod template: what the API server refuses, and the
// references the kubelet resolves when it starts the pod (a missing
// Secret key leaves the pod in CreateContainerConfigError, which no
// apply reports).
func (c *checker) pod(ps *corev1.PodSpec, ns string, indexed bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct{ v, name string }{{ps.Hostname, "hostname"}, {ps.Subdomain, "subdomain"}} {
		if f.v == "" {
			continue
		}
		for _, msg := range validation.IsDNS1123Label(f.v) {
			errs = append(errs, field.Invalid(p.Child(f.name), f.v, msg))
		}
	}
	volumes := map[string]bool{}
	for i := range ps.Volumes {
		v := &ps.Volumes[i]
		vp := p.Child("volumes").Index(i)
		for _, msg := range validation.IsDNS1123Label(v.Name) {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, msg))
		}
		if volumes[v.Name] {
			errs = append(errs, field.Duplicate(vp.Child("name"), v.Name))
		}
		volumes[v.Name] = true
		errs = append(errs, c.volume(v, ns, vp)...)
	}
	if len(ps.Containers) == 0 {
		errs = append(errs, field.Required(p.Child("containers"), "a pod runs at least one container"))
	}
	names := map[string]bool{}
	for _, set := range []struct {
		name string
		cs   []corev1.Container
	}{{"initContainers", ps.InitContainers}, {"containers", ps.Containers}} {
		for i := range set.cs {
			ct := &set.cs[i]
			cp := p.Child(set.name).Index(i)
			for _, msg := range validation.IsDNS1123Label(ct.Name) {
				errs = append(errs, field.Invalid(cp.Child("name"), ct.Name, msg))
			}
			if names[ct.Name] {
				errs = append(errs, field.Duplicate(cp.Child("name"), ct.Name))
			}
			names[ct.Name] = true
			errs = append(errs, c.container(ct, ns, indexed, volumes, cp)...)
		}
	}
	return errs
}

// volume checks a volume has one source and that the Secrets and
// ConfigMaps it projects hold the keys it names.
func (c *checker) volume(v *corev1.Volume, ns string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	sources := 0
	rv := reflect.ValueOf(v.VolumeSource)
	for i := range rv.NumField() {
		if f := rv.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			sources++
		}
	}
	if sources != 1 {
		errs = append(errs, field.Invalid(p, v.Name, fmt.Sprintf("%d volume sources; a volume has exactly one", sources)))
	}
	if s := v.Secret; s != nil {
		errs = append(errs, c.itemsRef("Secret", ns, "secretName", s.SecretName, s.Items, s.Optional, p.Child("secret"))...)
	}
	if cm := v.ConfigMap; cm != nil {
		errs = append(errs, c.itemsRef("ConfigMap", ns, "name", cm.Name, cm.Items, cm.Optional, p.Child("configMap"))...)
	}
	if pr := v.Projected; pr != nil {
		for i, src := range pr.Sources {
			sp := p.Child("projected", "sources").Index(i)
			if s := src.Secret; s != nil {
				errs = append(errs, c.itemsRef("Secret", ns, "name", s.Name, s.Items, s.Optional, sp.Child("secret"))...)
			}
			if cm := src.ConfigMap; cm != nil {
				errs = append(errs, c.itemsRef("ConfigMap", ns, "name", cm.Name, cm.Items, cm.Optional, sp.Child("configMap"))...)
			}
		}
	}
	return errs
}

// itemsRef checks a volume's reference to a Secret or ConfigMap (named
// in its field nameField) and the keys its items project.
func (c *checker) itemsRef(kind, ns, nameField, name string, items []corev1.KeyToPath, optional *bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		return field.ErrorList{field.Required(p.Child(nameField), "")}
	}
	paths := map[string]bool{}
	for i, it := range items {
		ip := p.Child("items").Index(i)
		if it.Path == "" {
			errs = append(errs, field.Required(ip.Child("path"), ""))
		}
		if paths[it.Path] {
			errs = append(errs, field.Duplicate(ip.Child("path"), it.Path))
		}
		paths[it.Path] = true
		errs = append(errs, c.keyRef(kind, ns, name, it.Key, optional, ip.Child("key"))...)
	}
	if len(items) == 0 {
		errs = append(errs, c.keyRef(kind, ns, name, "", optional, p.Child(nameField))...)
	}
	return errs
}

// keyRef resolves a reference to key (or, when key is empty, to the
// object alone) of a Secret or ConfigMap: an object the manifest holds
// must have the key; one it does not hold is a Need.
func (c *checker) keyRef(kind, ns, name, key string, optional *bool, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, kind+" name")}
	}
	if optional != nil && *optional {
		return nil
	}
	lookup := c.secretKeys
	if kind == "ConfigMap" {
		lookup = c.configMapKeys
	}
	keys, held := lookup(ns, name)
	if !held {
		k := needKey{kind, ns, name}
		if c.needs[k] == nil {
			c.needs[k] = map[string]bool{}
		}
		if key != "" {
			c.needs[k][key] = true
		}
		return nil
	}
	if key != "" && !keys[key] {
		return field.ErrorList{field.NotFound(p, fmt.Sprintf("%s %s has no key %q", kind, name, key))}
	}
	return nil
}

// fieldPaths are the pod fields an env var can take (the downward API).
var fieldPaths = map[string]bool{
	"metadata.name": true, "metadata.namespace": true, "metadata.uid": true,
	"spec.nodeName": true, "spec.serviceAccountName": true,
	"status.hostIP": true, "status.hostIPs": true, "status.podIP": true, "status.podIPs": true,
}

var subscripted = regexp.MustCompile(`^metadata\.(labels|annotations)\['([^']*)'\]$`)

// completionIndex is the label and annotation an Indexed Job sets on its
// pods; a pod of any other Job has neither, and an env var taken from one
// would fail the pod's start.
const completionIndex = batchv1.JobCompletionIndexAnnotation

func (c *checker) container(ct *corev1.Container, ns string, indexed bool, volumes map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ct.Image == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	}
	ports := map[string]bool{}
	for i, cp := range ct.Ports {
		pp := p.Child("ports").Index(i)
		errs = append(errs, portErrs(int(cp.ContainerPort), pp.Child("containerPort"))...)
		errs = append(errs, protocolErrs(cp.Protocol, pp.Child("protocol"))...)
		if cp.Name != "" {
			for _, msg := range validation.IsValidPortName(cp.Name) {
				errs = append(errs, field.Invalid(pp.Child("name"), cp.Name, msg))
			}
			if ports[cp.Name] {
				errs = append(errs, field.Duplicate(pp.Child("name"), cp.Name))
			}
			ports[cp.Name] = true
		}
	}
	for i, e := range ct.Env {
		ep := p.Child("env").Index(i)
		for _, msg := range validation.IsEnvVarName(e.Name) {
			errs = append(errs, field.Invalid(ep.Child("name"), e.Name, msg))
		}
		if e.ValueFrom == nil {
			continue
		}
		vp := ep.Child("valueFrom")
		if e.Value != "" {
			errs = append(errs, field.Invalid(vp, "", "may not be specified when `value` is not empty"))
		}
		vf := e.ValueFrom
		n := 0
		if r := vf.SecretKeyRef; r != nil {
			n++
			errs = append(errs, c.keyRef("Secret", ns, r.Name, r.Key, r.Optional, vp.Child("secretKeyRef"))...)
			errs = append(errs, requiredKey(r.Key, vp.Child("secretKeyRef", "key"))...)
		}
		if r := vf.ConfigMapKeyRef; r != nil {
			n++
			errs = append(errs, c.keyRef("ConfigMap", ns, r.Name, r.Key, r.Optional, vp.Child("configMapKeyRef"))...)
			errs = append(errs, requiredKey(r.Key, vp.Child("configMapKeyRef", "key"))...)
		}
		if r := vf.FieldRef; r != nil {
			n++
			errs = append(errs, fieldRefErrs(r.FieldPath, indexed, vp.Child("fieldRef", "fieldPath"))...)
		}
		if vf.ResourceFieldRef != nil {
			n++
		}
		if vf.FileKeyRef != nil {
			n++
		}
		if n != 1 {
			errs = append(errs, field.Invalid(vp, "", fmt.Sprintf("%d sources; exactly one of secretKeyRef, configMapKeyRef, fieldRef, resourceFieldRef, fileKeyRef", n)))
		}
	}
	for i, ef := range ct.EnvFrom {
		fp := p.Child("envFrom").Index(i)
		if r := ef.SecretRef; r != nil {
			errs = append(errs, c.keyRef("Secret", ns, r.Name, "", r.Optional, fp.Child("secretRef", "name"))...)
		}
		if r := ef.ConfigMapRef; r != nil {
			errs = append(errs, c.keyRef("ConfigMap", ns, r.Name, "", r.Optional, fp.Child("configMapRef", "name"))...)
		}
	}
	mounts := map[string]bool{}
	for i, vm := range ct.VolumeMounts {
		mp := p.Child("volumeMounts").Index(i)
		if !volumes[vm.Name] {
			errs = append(errs, field.NotFound(mp.Child("name"), vm.Name))
		}
		if vm.MountPath == "" {
			errs = append(errs, field.Required(mp.Child("mountPath"), ""))
		}
		if mounts[vm.MountPath] {
			errs = append(errs, field.Invalid(mp.Child("mountPath"), vm.MountPath, "must be unique"))
		}
		mounts[vm.MountPath] = true
	}
	// A limit below its request is refused: the pod could never have
	// what it asks to be scheduled with.
	rp := p.Child("resources")
	for _, set := range []struct {
		name string
		rl   corev1.ResourceList
	}{{"requests", ct.Resources.Requests}, {"limits", ct.Resources.Limits}} {
		for name, q := range set.rl {
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(rp.Child(set.name).Key(string(name)), q.String(), "must be greater than or equal to 0"))
			}
		}
	}
	for name, req := range ct.Resources.Requests {
		if lim, ok := ct.Resources.Limits[name]; ok && req.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(rp.Child("requests").Key(string(name)), req.String(),
				fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
		}
	}
	return errs
}

func requiredKey(key string, p *field.Path) field.ErrorList {
	if key == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return keyErrs(key, p)
}

func fieldRefErrs(path string, indexed bool, p *field.Path) field.ErrorList {
	if fieldPaths[path] {
		return nil
	}
	m := subscripted.FindStringSubmatch(path)
	if m == nil {
		return field.ErrorList{field.Invalid(p, path, "not a pod field the downward API gives")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(m[2]) {
		errs = append(errs, field.Invalid(p, path, msg))
	}
	if m[2] == completionIndex && !indexed {
		errs = append(errs, field.Invalid(p, path, "only the pods of a Job with completionMode Indexed have the completion index"))
	}
	return errs
}
