#include "apimachinery/patch_meta.h"

namespace hetbench::kubesim::detail {
namespace {

// The tags as k8s.io/api v1.32 declares them (core/v1, apps/v1, batch/v1, admissionregistration/v1,
// apiextensions/v1). Fields left out are untagged there: atomic lists such as tolerations,
// envFrom, node taints, RBAC rules. The tags inside elements of an atomic list (container
// statuses, a CRD's versions) change no patch, which replaces the whole list; they are here for
// the OpenAPI documents, which publish them on the element's type.
struct Tables {
  TypeMeta objectMeta, container, containerStatus, podSpec, podStatus, podTemplateSpec, pod;
  TypeMeta serviceSpec, serviceStatus, service;
  TypeMeta nodeSpec, nodeStatus, node;
  TypeMeta pvcStatus, pvc;
  TypeMeta jobSpec, jobStatus, job, jobTemplateSpec, cronJobSpec, cronJob;
  TypeMeta namespaceStatus, namespaceKind, serviceAccount;
  TypeMeta deploymentSpec, workloadSpec, workloadStatus, deployment, workload, podTemplate;
  TypeMeta policySpec, policy;
  TypeMeta jsonSchemaProps, crdValidation, crdVersion, crdSpec, crd;
  TypeMeta metadataOnly;
  std::map<std::string, const TypeMeta*, std::less<>> kinds;

  static FieldMeta mergeBy(std::string key, const TypeMeta* element = nullptr) {
    return {true, std::move(key), element};
  }
  static FieldMeta object(const TypeMeta* type) { return {false, "", type}; }
  // The list-map keys and atomic maps that only server-side apply reads: ports are keyed by
  // protocol too, LabelSelector is +structType=atomic, nodeSelector and a Service's selector
  // +mapType=atomic.
  static FieldMeta mergeByWithProtocol(std::string key) {
    FieldMeta meta = mergeBy(std::move(key));
    meta.moreKeys = {{"protocol", "TCP"}};
    return meta;
  }
  static FieldMeta withKey(FieldMeta meta, std::string key) {
    meta.moreKeys.emplace_back(std::move(key), "");
    return meta;
  }
  static FieldMeta atomicMap() {
    FieldMeta meta;
    meta.atomic = true;
    return meta;
  }
  static FieldMeta list(const TypeMeta* element) { return {false, "", element}; }
  static FieldMeta retainingKeys(FieldMeta field) {
    field.retainKeys = true;
    return field;
  }

  Tables() {
    objectMeta.fields = {
        {"finalizers", {true, "", nullptr}},
        {"ownerReferences", mergeBy("uid")},
    };
    // Container and EphemeralContainerCommon carry the same tags.
    container.fields = {
        {"ports", mergeByWithProtocol("containerPort")},
        {"env", mergeBy("name")},
        {"volumeMounts", mergeBy("mountPath")},
        {"volumeDevices", mergeBy("devicePath")},
    };
    containerStatus.fields = {
        {"volumeMounts", mergeBy("mountPath")},
        {"allocatedResourcesStatus", mergeBy("name")},
    };
    podSpec.fields = {
        {"volumes", retainingKeys(mergeBy("name"))},
        {"initContainers", mergeBy("name", &container)},
        {"containers", mergeBy("name", &container)},
        {"ephemeralContainers", mergeBy("name", &container)},
        {"imagePullSecrets", mergeBy("name")},
        {"hostAliases", mergeBy("ip")},
        {"topologySpreadConstraints", withKey(mergeBy("topologyKey"), "whenUnsatisfiable")},
        {"resourceClaims", retainingKeys(mergeBy("name"))},
        {"schedulingGates", mergeBy("name")},
        {"nodeSelector", atomicMap()},
    };
    podStatus.fields = {
        {"conditions", mergeBy("type")},
        {"podIPs", mergeBy("ip")},
        {"hostIPs", mergeBy("ip")},
        {"initContainerStatuses", list(&containerStatus)},
        {"containerStatuses", list(&containerStatus)},
        {"ephemeralContainerStatuses", list(&containerStatus)},
        {"resourceClaimStatuses", retainingKeys(mergeBy("name"))},
    };
    podTemplateSpec.fields = {{"metadata", object(&objectMeta)}, {"spec", object(&podSpec)}};
    pod.fields = {{"metadata", object(&objectMeta)},
                  {"spec", object(&podSpec)},
                  {"status", object(&podStatus)}};

    serviceSpec.fields = {{"ports", mergeByWithProtocol("port")}, {"selector", atomicMap()}};
    serviceStatus.fields = {{"conditions", mergeBy("type")}};
    service.fields = {{"metadata", object(&objectMeta)},
                      {"spec", object(&serviceSpec)},
                      {"status", object(&serviceStatus)}};

    nodeSpec.fields = {{"podCIDRs", {true, "", nullptr}}};
    nodeStatus.fields = {{"conditions", mergeBy("type")}, {"addresses", mergeBy("type")}};
    node.fields = {{"metadata", object(&objectMeta)},
                   {"spec", object(&nodeSpec)},
                   {"status", object(&nodeStatus)}};

    pvcStatus.fields = {{"conditions", mergeBy("type")}};
    pvc.fields = {{"metadata", object(&objectMeta)}, {"status", object(&pvcStatus)}};

    jobSpec.fields = {{"template", object(&podTemplateSpec)}, {"selector", atomicMap()}};
    jobStatus.fields = {{"conditions", mergeBy("type")}};
    job.fields = {{"metadata", object(&objectMeta)},
                  {"spec", object(&jobSpec)},
                  {"status", object(&jobStatus)}};
    jobTemplateSpec.fields = {{"metadata", object(&objectMeta)}, {"spec", object(&jobSpec)}};
    cronJobSpec.fields = {{"jobTemplate", object(&jobTemplateSpec)}};
    cronJob.fields = {{"metadata", object(&objectMeta)}, {"spec", object(&cronJobSpec)}};

    namespaceStatus.fields = {{"conditions", mergeBy("type")}};
    namespaceKind.fields = {{"metadata", object(&objectMeta)},
                            {"status", object(&namespaceStatus)}};
    serviceAccount.fields = {{"metadata", object(&objectMeta)}, {"secrets", mergeBy("name")}};

    // ReplicaSet, StatefulSet and DaemonSet share the parts that carry tags; a Deployment's
    // strategy also retains keys (switching to Recreate drops rollingUpdate).
    workloadSpec.fields = {{"template", object(&podTemplateSpec)}, {"selector", atomicMap()}};
    deploymentSpec.fields = {{"template", object(&podTemplateSpec)},
                             {"strategy", retainingKeys(object(nullptr))},
                             {"selector", atomicMap()}};
    workloadStatus.fields = {{"conditions", mergeBy("type")}};
    workload.fields = {{"metadata", object(&objectMeta)},
                       {"spec", object(&workloadSpec)},
                       {"status", object(&workloadStatus)}};
    deployment.fields = {{"metadata", object(&objectMeta)},
                         {"spec", object(&deploymentSpec)},
                         {"status", object(&workloadStatus)}};
    podTemplate.fields = {{"metadata", object(&objectMeta)},
                          {"template", object(&podTemplateSpec)}};

    policySpec.fields = {{"matchConditions", mergeBy("name")}, {"variables", mergeBy("name")}};
    policy.fields = {{"metadata", object(&objectMeta)}, {"spec", object(&policySpec)}};

    // JSONSchemaProps is reached through its root only: the nested schemas are in maps.
    jsonSchemaProps.fields = {{"x-kubernetes-validations", mergeBy("rule")}};
    crdValidation.fields = {{"openAPIV3Schema", object(&jsonSchemaProps)}};
    crdVersion.fields = {{"schema", object(&crdValidation)}};
    crdSpec.fields = {{"versions", list(&crdVersion)}};
    crd.fields = {{"metadata", object(&objectMeta)}, {"spec", object(&crdSpec)}};

    // The other kinds (Event, ConfigMap, Secret, Lease, Scale, ...) have tagged fields only in
    // their metadata.
    metadataOnly.fields = {{"metadata", object(&objectMeta)}};

    kinds = {
        {"Pod", &pod},
        {"Service", &service},
        {"Node", &node},
        {"PersistentVolumeClaim", &pvc},
        {"Job", &job},
        {"CronJob", &cronJob},
        {"Namespace", &namespaceKind},
        {"ServiceAccount", &serviceAccount},
        {"Deployment", &deployment},
        {"ReplicaSet", &workload},
        {"StatefulSet", &workload},
        {"DaemonSet", &workload},
        {"PodTemplate", &podTemplate},
        {"ValidatingAdmissionPolicy", &policy},
        {"CustomResourceDefinition", &crd},
        {"ConfigMap", &metadataOnly},
        {"Secret", &metadataOnly},
        {"Event", &metadataOnly},
        {"Lease", &metadataOnly},
        {"Scale", &metadataOnly},
        {"NetworkPolicy", &metadataOnly},
        {"Role", &metadataOnly},
        {"ClusterRole", &metadataOnly},
        {"RoleBinding", &metadataOnly},
        {"ClusterRoleBinding", &metadataOnly},
        {"ValidatingAdmissionPolicyBinding", &metadataOnly},
    };
  }
  Tables(const Tables&) = delete;
  Tables& operator=(const Tables&) = delete;
};

const Tables& tables() {
  static const Tables instance;
  return instance;
}

}  // namespace

FieldMeta TypeMeta::lookup(std::string_view name) const {
  auto it = fields.find(name);
  return it == fields.end() ? FieldMeta{} : it->second;
}

const TypeMeta* patchMetaForKind(std::string_view kind) {
  const auto& kinds = tables().kinds;
  auto it = kinds.find(kind);
  return it == kinds.end() ? nullptr : it->second;
}

}  // namespace hetbench::kubesim::detail
