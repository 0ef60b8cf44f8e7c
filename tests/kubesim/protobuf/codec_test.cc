#include "protobuf/codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hetbench::kubesim::protobuf {
namespace {

using nlohmann::json;

// Protobuf wire bytes written by hand, as Go's generated code writes them.
std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string varintField(int number, std::uint64_t v) {
  return varint(static_cast<std::uint64_t>(number) << 3) + varint(v);
}
std::string bytesField(int number, const std::string& data) {
  return varint((static_cast<std::uint64_t>(number) << 3) | 2) + varint(data.size()) + data;
}
std::string envelope(const std::string& apiVersion, const std::string& kind,
                     const std::string& raw) {
  return std::string("k8s\0", 4) + bytesField(1, bytesField(1, apiVersion) + bytesField(2, kind)) +
         bytesField(2, raw);
}

struct RoundTripCase {
  const char* name;
  json object;
};

// Objects as kubesim stores them, every kind and every special type somewhere.
std::vector<RoundTripCase> roundTripCases() {
  return {
      {"Namespace",
       json::parse(
           R"json({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a","creationTimestamp":"2026-11-22T07:16:00Z"},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}})json")},
      {"ConfigMap",
       json::parse(
           R"json({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"team-a","uid":"0b5e0c9e-2f6c-4d3e-9a51-7c1c0b6d8f10","resourceVersion":"42","generation":3,"creationTimestamp":"2026-11-22T07:16:00Z","labels":{"app":"web"},"annotations":{"note":""},"finalizers":["example.com/hold"],"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"j","uid":"u1","controller":true,"blockOwnerDeletion":false}],"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2026-11-22T07:16:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]},"data":{"k":"v","empty":""},"binaryData":{"blob":"AAEC/w=="},"immutable":false})json")},
      {"Secret",
       json::parse(
           R"json({"apiVersion":"v1","kind":"Secret","metadata":{"name":"creds"},"type":"Opaque","data":{"password":"aHVudGVyMg=="}})json")},
      {"ServiceAccount",
       json::parse(
           R"json({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot"},"automountServiceAccountToken":false,"secrets":[{"name":"robot-token"}]})json")},
      {"Pod", json::parse(
                  R"json({"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","namespace":"team-a","uid":"0b5e0c9e-2f6c-4d3e-9a51-7c1c0b6d8f10","resourceVersion":"42","generation":3,"creationTimestamp":"2026-11-22T07:16:00Z","labels":{"app":"web"},"annotations":{"note":""},"finalizers":["example.com/hold"],"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"j","uid":"u1","controller":true,"blockOwnerDeletion":false}],"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2026-11-22T07:16:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]},"spec":{"containers":[{"name":"main","image":"busybox","command":["sh","-c","echo $(X)"],"env":[{"name":"X","value":"1"},{"name":"Y","valueFrom":{"configMapKeyRef":{"name":"settings","key":"y"}}}],"ports":[{"containerPort":8080,"protocol":"TCP"}],"resources":{"limits":{"cpu":"500m","nvidia.com/gpu":"1"},"requests":{"memory":"1Gi"}},"readinessProbe":{"httpGet":{"path":"/healthz","port":"http"},"periodSeconds":5},"livenessProbe":{"tcpSocket":{"port":8080}},"securityContext":{"allowPrivilegeEscalation":false,"runAsNonRoot":true,"capabilities":{"drop":["ALL"]}},"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Never","terminationGracePeriodSeconds":0,"nodeSelector":{"kubernetes.io/os":"linux"},"tolerations":[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoExecute","tolerationSeconds":30}],"volumes":[{"name":"cache","emptyDir":{"sizeLimit":"1Gi"}},{"name":"cfg","configMap":{"name":"settings","defaultMode":420}}]},"status":{"phase":"Running","startTime":"2026-11-22T07:16:01Z","conditions":[{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-22T07:16:02Z"}],"containerStatuses":[{"name":"main","ready":false,"restartCount":0,"image":"busybox","imageID":"","state":{"running":{"startedAt":"2026-11-22T07:16:02Z"}}}]}})json")},
      {"Job",
       json::parse(
           R"json({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"x","namespace":"team-a","uid":"0b5e0c9e-2f6c-4d3e-9a51-7c1c0b6d8f10","resourceVersion":"42","generation":3,"creationTimestamp":"2026-11-22T07:16:00Z","labels":{"app":"web"},"annotations":{"note":""},"finalizers":["example.com/hold"],"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"j","uid":"u1","controller":true,"blockOwnerDeletion":false}],"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2026-11-22T07:16:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]},"spec":{"parallelism":0,"completions":4,"completionMode":"Indexed","backoffLimit":6,"suspend":false,"podFailurePolicy":{"rules":[{"action":"FailJob","onExitCodes":{"operator":"In","values":[42]}}]},"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"main","image":"busybox","command":["sh","-c","echo $(X)"],"env":[{"name":"X","value":"1"},{"name":"Y","valueFrom":{"configMapKeyRef":{"name":"settings","key":"y"}}}],"ports":[{"containerPort":8080,"protocol":"TCP"}],"resources":{"limits":{"cpu":"500m","nvidia.com/gpu":"1"},"requests":{"memory":"1Gi"}},"readinessProbe":{"httpGet":{"path":"/healthz","port":"http"},"periodSeconds":5},"livenessProbe":{"tcpSocket":{"port":8080}},"securityContext":{"allowPrivilegeEscalation":false,"runAsNonRoot":true,"capabilities":{"drop":["ALL"]}},"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Never","terminationGracePeriodSeconds":0,"nodeSelector":{"kubernetes.io/os":"linux"},"tolerations":[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoExecute","tolerationSeconds":30}],"volumes":[{"name":"cache","emptyDir":{"sizeLimit":"1Gi"}},{"name":"cfg","configMap":{"name":"settings","defaultMode":420}}]}}},"status":{"active":1,"ready":0,"completedIndexes":"0-2","startTime":"2026-11-22T07:16:00Z"}})json")},
      {"Service",
       json::parse(
           R"json({"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"clusterIP":"None","ports":[{"name":"http","port":80,"targetPort":"http","protocol":"TCP"},{"name":"alt","port":81,"targetPort":8081}],"selector":{"app":"web"}}})json")},
      {"Event",
       json::parse(
           R"json({"apiVersion":"v1","kind":"Event","metadata":{"name":"e1","namespace":"default"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"Scheduled","type":"Normal","count":2,"eventTime":"2026-11-22T07:16:00.123456Z","firstTimestamp":"2026-11-22T07:16:00Z"})json")},
      {"Deployment",
       json::parse(
           R"json({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":0}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"main","image":"busybox","command":["sh","-c","echo $(X)"],"env":[{"name":"X","value":"1"},{"name":"Y","valueFrom":{"configMapKeyRef":{"name":"settings","key":"y"}}}],"ports":[{"containerPort":8080,"protocol":"TCP"}],"resources":{"limits":{"cpu":"500m","nvidia.com/gpu":"1"},"requests":{"memory":"1Gi"}},"readinessProbe":{"httpGet":{"path":"/healthz","port":"http"},"periodSeconds":5},"livenessProbe":{"tcpSocket":{"port":8080}},"securityContext":{"allowPrivilegeEscalation":false,"runAsNonRoot":true,"capabilities":{"drop":["ALL"]}},"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Never","terminationGracePeriodSeconds":0,"nodeSelector":{"kubernetes.io/os":"linux"},"tolerations":[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoExecute","tolerationSeconds":30}],"volumes":[{"name":"cache","emptyDir":{"sizeLimit":"1Gi"}},{"name":"cfg","configMap":{"name":"settings","defaultMode":420}}]}}}})json")},
      {"ReplicaSet",
       json::parse(
           R"json({"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-5d8f7c9b4","namespace":"team-a","labels":{"app":"web","pod-template-hash":"5d8f7c9b4"},"annotations":{"deployment.kubernetes.io/revision":"2"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"u1","controller":true,"blockOwnerDeletion":true}]},"spec":{"replicas":0,"minReadySeconds":5,"selector":{"matchLabels":{"app":"web","pod-template-hash":"5d8f7c9b4"}},"template":{"metadata":{"labels":{"app":"web","pod-template-hash":"5d8f7c9b4"}},"spec":{"containers":[{"name":"main","image":"busybox","args":["--verbose"]}]}}},"status":{"replicas":0,"fullyLabeledReplicas":1,"readyReplicas":1,"availableReplicas":1,"observedGeneration":2,"conditions":[{"type":"ReplicaFailure","status":"True","lastTransitionTime":"2026-11-22T07:16:00Z","reason":"FailedCreate","message":"quota"}]}})json")},
      {"Scale",
       json::parse(
           R"json({"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"team-a","uid":"0b5e0c9e-2f6c-4d3e-9a51-7c1c0b6d8f10","resourceVersion":"42","creationTimestamp":"2026-11-22T07:16:00Z"},"spec":{"replicas":3},"status":{"replicas":0,"selector":"app=web,tier in (edge,front)"}})json")},
      {"Lease",
       json::parse(
           R"json({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"leader"},"spec":{"holderIdentity":"a","leaseDurationSeconds":15,"leaseTransitions":0,"renewTime":"2026-11-22T07:16:00.500000Z"}})json")},
      {"NetworkPolicy",
       json::parse(
           R"json({"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"deny"},"spec":{"podSelector":{"matchExpressions":[{"key":"tier","operator":"In","values":["db"]}]},"ingress":[{"ports":[{"port":5432,"endPort":5440,"protocol":"TCP"}]}],"policyTypes":["Ingress"]}})json")},
      {"ClusterRoleBinding",
       json::parse(
           R"json({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"r"},"subjects":[{"kind":"ServiceAccount","name":"robot","namespace":"team-a"}]})json")},
      {"ClusterRole",
       json::parse(
           R"json({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"r"},"rules":[{"apiGroups":[""],"resources":["pods","pods/log"],"verbs":["get"]}],"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"aggregate":"true"}}]}})json")},
      {"TokenReview",
       json::parse(
           R"json({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","metadata":{"creationTimestamp":null},"spec":{"token":"t"},"status":{"authenticated":true,"user":{"username":"system:serviceaccount:team-a:robot","uid":"u","groups":["system:serviceaccounts"],"extra":{"authentication.kubernetes.io/credential-id":["JTI=1"]}},"audiences":["https://kubernetes.default.svc.cluster.local"]}})json")},
      {"SelfSubjectAccessReview",
       json::parse(
           R"json({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}},"status":{"allowed":false}})json")},
      {"TokenRequest",
       json::parse(
           R"json({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{"name":"robot"},"spec":{"audiences":["api"],"expirationSeconds":3600},"status":{"token":"eyJ","expirationTimestamp":"2026-11-22T08:16:00Z"}})json")},
      {"PersistentVolumeClaim",
       json::parse(
           R"json({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"","resources":{"requests":{"storage":"10Gi"}}}})json")},
      {"Node",
       json::parse(
           R"json({"apiVersion":"v1","kind":"Node","metadata":{"name":"a100-1"},"spec":{"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]},"status":{"capacity":{"cpu":"64","nvidia.com/gpu":"4"},"addresses":[{"type":"InternalIP","address":"10.0.0.1"}],"nodeInfo":{"kubeletVersion":"v1.32.0"}}})json")},
      {"ValidatingAdmissionPolicy",
       json::parse(
           R"json({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"p"},"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":["batch"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["jobs"]}]},"validations":[{"expression":"object.spec.parallelism <= 4"}]}})json")},
      {"CustomResourceDefinition",
       json::parse(
           R"json({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","names":{"plural":"widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"size":{"type":"integer","minimum":1,"default":3},"tags":{"type":"array","items":{"type":"string"}},"labels":{"type":"object","additionalProperties":{"type":"string"}},"closed":{"type":"object","additionalProperties":false},"color":{"type":"string","enum":["red","blue"]}}}}}}}]},"status":{"acceptedNames":{"plural":"widgets","kind":"Widget"},"storedVersions":["v1"]}})json")},
      {"PodList", json::
                      parse(R"json({"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"7","continue":"abc","remainingItemCount":0},"items":[{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}}]})json")},
      {"Status",
       json::parse(
           R"json({"apiVersion":"v1","kind":"Status","metadata":{},"status":"Failure","message":"jobs.batch \"j\" is invalid: spec.parallelism: Invalid value","reason":"Invalid","details":{"name":"j","group":"batch","kind":"jobs","causes":[{"reason":"FieldValueInvalid","message":"m","field":"spec"}],"retryAfterSeconds":3},"code":422})json")},
      {"DeleteOptions",
       json::parse(
           R"json({"apiVersion":"meta.k8s.io/v1","kind":"DeleteOptions","gracePeriodSeconds":0,"propagationPolicy":"Foreground","preconditions":{"uid":"u1"},"dryRun":["All"]})json")},
  };
}

// Verifies that each kind's object comes back from its protobuf encoding unchanged.
TEST(ProtobufCodec, RoundTripsEveryKind) {
  for (const RoundTripCase& c : roundTripCases()) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(hasSchema(c.object["apiVersion"].get<std::string>(), c.name));
    common::Result<std::string> encoded = encodeObject(c.object);
    ASSERT_TRUE(encoded.isOk()) << encoded.status().message();
    common::Result<json> decoded = decodeObject(*encoded);
    ASSERT_TRUE(decoded.isOk()) << decoded.status().message();
    EXPECT_EQ(*decoded, c.object) << "decoded: " << decoded->dump()
                                  << "\nsent: " << c.object.dump();
  }
}

// Verifies the bytes of a small object against the Kubernetes field numbers written by hand.
TEST(ProtobufCodec, EncodesKubernetesFieldNumbers) {
  common::Result<std::string> encoded = encodeObject({{"apiVersion", "v1"},
                                                      {"kind", "ConfigMap"},
                                                      {"metadata", {{"name", "c"}}},
                                                      {"data", {{"k", "v"}}}});
  ASSERT_TRUE(encoded.isOk()) << encoded.status().message();
  // ConfigMap: metadata = 1 (ObjectMeta.name = 1), data = 2 (map entries: key 1, value 2).
  const std::string raw =
      bytesField(1, bytesField(1, "c")) + bytesField(2, bytesField(1, "k") + bytesField(2, "v"));
  EXPECT_EQ(*encoded, envelope("v1", "ConfigMap", raw));
}

// Verifies that what a Go client writes for every non-pointer field reads back as the JSON a
// client would have sent: empty strings and zero numbers left out, an unset time null, empty
// structs kept, and zero pointer fields kept.
TEST(ProtobufCodec, ZeroValuesAsGoWritesThem) {
  const std::string objectMeta = bytesField(1, "team-a") + bytesField(2, "") + bytesField(3, "") +
                                 bytesField(4, "") + bytesField(5, "") + bytesField(6, "") +
                                 varintField(7, 0) + bytesField(8, "");
  const std::string ns =
      bytesField(1, objectMeta) + bytesField(2, "") + bytesField(3, bytesField(1, ""));
  common::Result<json> decoded = decodeObject(envelope("v1", "Namespace", ns));
  ASSERT_TRUE(decoded.isOk()) << decoded.status().message();
  EXPECT_EQ(*decoded, json({{"apiVersion", "v1"},
                            {"kind", "Namespace"},
                            {"metadata", {{"name", "team-a"}, {"creationTimestamp", nullptr}}},
                            {"spec", json::object()},
                            {"status", json::object()}}));

  // JobSpec: parallelism = 1 and suspend = 10 are pointers in Go, so their zeros are values.
  const std::string job =
      bytesField(1, bytesField(1, "j")) + bytesField(2, varintField(1, 0) + varintField(10, 0));
  decoded = decodeObject(envelope("batch/v1", "Job", job));
  ASSERT_TRUE(decoded.isOk()) << decoded.status().message();
  EXPECT_EQ((*decoded)["spec"], json({{"parallelism", 0}, {"suspend", false}}));

  // A Scale to zero (kubectl scale --replicas=0): ScaleSpec.replicas is omitempty,
  // ScaleStatus.replicas is not.
  const std::string scale = bytesField(1, bytesField(1, "web")) + bytesField(2, varintField(1, 0)) +
                            bytesField(3, varintField(1, 0) + bytesField(2, "app=web"));
  decoded = decodeObject(envelope("autoscaling/v1", "Scale", scale));
  ASSERT_TRUE(decoded.isOk()) << decoded.status().message();
  EXPECT_EQ((*decoded)["spec"], json::object());
  EXPECT_EQ((*decoded)["status"], json({{"replicas", 0}, {"selector", "app=web"}}));
}

struct SpecialCase {
  const char* name;
  std::string raw;  // a Pod's bytes
  json podSpec;     // what its spec reads as
};

// Verifies the JSON of Kubernetes' special types read from their wire form.
TEST(ProtobufCodec, SpecialTypes) {
  const auto container = [](const std::string& fields) {
    return bytesField(2, bytesField(2, bytesField(1, "c") + fields));  // Pod.spec.containers
  };
  const std::vector<SpecialCase> cases = {
      // Container.resources = 8, ResourceRequirements.limits = 1, Quantity.string = 1.
      {"quantity",
       container(bytesField(
           8, bytesField(1, bytesField(1, "cpu") + bytesField(2, bytesField(1, "250m"))))),
       {{"containers", {{{"name", "c"}, {"resources", {{"limits", {{"cpu", "250m"}}}}}}}}}},
      // Container.ports = 6 is no IntOrString; a readinessProbe (11) httpGet (ProbeHandler = 1,
      // httpGet = 2) port (2) is: type 1 = string.
      {"int-or-string as a string",
       container(bytesField(
           11,
           bytesField(1, bytesField(2, bytesField(2, varintField(1, 1) + bytesField(3, "http")))))),
       {{"containers", {{{"name", "c"}, {"readinessProbe", {{"httpGet", {{"port", "http"}}}}}}}}}},
      {"int-or-string as a number",
       container(bytesField(
           11,
           bytesField(1, bytesField(2, bytesField(2, varintField(1, 0) + varintField(2, 8080)))))),
       {{"containers", {{{"name", "c"}, {"readinessProbe", {{"httpGet", {{"port", 8080}}}}}}}}}},
      // Container.env = 7, EnvVar.valueFrom = 3, configMapKeyRef = 3, inline
      // LocalObjectReference = 1 (name = 1), key = 2.
      {"inline struct",
       container(bytesField(
           7, bytesField(1, "X") + bytesField(3, bytesField(3, bytesField(1, bytesField(1, "cm")) +
                                                                   bytesField(2, "k"))))),
       {{"containers",
         {{{"name", "c"},
           {"env",
            {{{"name", "X"},
              {"valueFrom", {{"configMapKeyRef", {{"name", "cm"}, {"key", "k"}}}}}}}}}}}}},
  };
  for (const SpecialCase& c : cases) {
    SCOPED_TRACE(c.name);
    common::Result<json> decoded = decodeObject(envelope("v1", "Pod", c.raw));
    ASSERT_TRUE(decoded.isOk()) << decoded.status().message();
    EXPECT_EQ((*decoded)["spec"], c.podSpec);
  }
  // Time: seconds and nanos, written to the second; MicroTime to the microsecond.
  common::Result<json> lease = decodeObject(
      envelope("coordination.k8s.io/v1", "Lease",
               bytesField(2, bytesField(3, varintField(1, 1795331760) + varintField(2, 123456789)) +
                                 bytesField(4, varintField(1, 1795331760)))));
  ASSERT_TRUE(lease.isOk()) << lease.status().message();
  EXPECT_EQ((*lease)["spec"], json({{"acquireTime", "2026-11-22T07:16:00.123456Z"},
                                    {"renewTime", "2026-11-22T07:16:00.000000Z"}}));
  common::Result<json> pod = decodeObject(envelope(
      "v1", "Pod", bytesField(1, bytesField(8, varintField(1, 1795331760) + varintField(2, 5)))));
  ASSERT_TRUE(pod.isOk()) << pod.status().message();
  EXPECT_EQ((*pod)["metadata"]["creationTimestamp"], "2026-11-22T07:16:00Z");
}

struct MalformedCase {
  const char* name;
  std::string body;
  common::StatusCode code;
  const char* message;
};

// Verifies that malformed bodies are errors with a message, never a crash or a silent loss.
TEST(ProtobufCodec, MalformedInput) {
  const std::string ns = bytesField(1, bytesField(1, "a"));
  const std::vector<MalformedCase> cases = {
      {"empty", "", common::StatusCode::kInvalid,
       "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"},
      {"json", R"({"kind":"Namespace"})", common::StatusCode::kInvalid,
       "provided data does not appear to be a protobuf message"},
      {"truncated envelope", envelope("v1", "Namespace", ns).substr(0, 12),
       common::StatusCode::kInvalid, "the protobuf envelope (runtime.Unknown) is truncated"},
      {"truncated object", envelope("v1", "Namespace", ns.substr(0, ns.size() - 1)),
       common::StatusCode::kInvalid, "the Namespace message is truncated or malformed"},
      {"wrong wire type", envelope("v1", "Namespace", varintField(1, 5)),
       common::StatusCode::kInvalid,
       "field 1 (metadata) of k8s.io.api.core.v1.Namespace has the "
       "wrong wire type"},
      {"unknown field with data", envelope("v1", "Namespace", ns + bytesField(99, "x")),
       common::StatusCode::kInvalid,
       "field 99 of k8s.io.api.core.v1.Namespace is not in kubesim's"},
      {"unknown nested field", envelope("v1", "Namespace", bytesField(1, varintField(98, 1))),
       common::StatusCode::kInvalid, "metadata: field 98 of"},
      {"custom resource", envelope("example.com/v1", "Widget", ns), common::StatusCode::kNotFound,
       "kubesim has no protobuf schema for example.com/v1, Kind=Widget"},
      {"bad IntOrString",
       envelope("v1", "Service", bytesField(2, bytesField(1, bytesField(4, varintField(1, 2))))),
       common::StatusCode::kInvalid, "IntOrString type 2 is neither 0 nor 1"},
      {"time out of range",
       envelope("v1", "Namespace", bytesField(1, bytesField(8, varintField(1, 1ull << 62)))),
       common::StatusCode::kInvalid, "metadata.creationTimestamp: time out of range"},
      {"content encoding",
       std::string("k8s\0", 4) + bytesField(1, bytesField(1, "v1") + bytesField(2, "Namespace")) +
           bytesField(2, ns) + bytesField(3, "gzip"),
       common::StatusCode::kInvalid, "content encoding \"gzip\" is not supported"},
  };
  for (const MalformedCase& c : cases) {
    SCOPED_TRACE(c.name);
    common::Result<json> decoded = decodeObject(c.body);
    ASSERT_FALSE(decoded.isOk()) << decoded->dump();
    EXPECT_EQ(decoded.status().code(), c.code);
    EXPECT_NE(decoded.status().message().find(c.message), std::string::npos)
        << decoded.status().message();
  }
  // A zero-valued field kubesim does not know carries no data and is ignored.
  common::Result<json> decoded = decodeObject(envelope("v1", "Namespace", ns + varintField(97, 0)));
  ASSERT_TRUE(decoded.isOk()) << decoded.status().message();
  EXPECT_EQ((*decoded)["metadata"]["name"], "a");
}

// Verifies that every prefix of a real body decodes or fails cleanly.
TEST(ProtobufCodec, EveryTruncationIsHandled) {
  const RoundTripCase pod = roundTripCases()[4];
  ASSERT_STREQ(pod.name, "Pod");
  common::Result<std::string> encoded = encodeObject(pod.object);
  ASSERT_TRUE(encoded.isOk());
  for (std::size_t n = 0; n < encoded->size(); ++n) {
    common::Result<json> decoded = decodeObject(std::string_view(*encoded).substr(0, n));
    // A cut inside the kind's name names a kind kubesim has no schema for.
    if (!decoded.isOk()) {
      EXPECT_TRUE(decoded.status().isInvalid() || decoded.status().isNotFound())
          << n << ": " << decoded.status().message();
    }
  }
}

// Verifies the JSON that the encoder refuses, so that the server answers in JSON instead.
TEST(ProtobufCodec, EncodeRefusesWhatTheSchemaCannotHold) {
  const json cases[] = {
      {{"apiVersion", "example.com/v1"}, {"kind", "Widget"}},
      {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"unknownField", 1}},
      {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"data", {{"k", 1}}}},
      {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"spec", {{"parallelism", 4294967296}}}},
      {{"apiVersion", "v1"}, {"kind", "Secret"}, {"data", {{"k", "not base64!"}}}},
      {{"apiVersion", "v1"},
       {"kind", "Namespace"},
       {"metadata", {{"creationTimestamp", "yesterday"}}}},
  };
  for (const json& object : cases) {
    EXPECT_FALSE(encodeObject(object).isOk()) << object.dump();
  }
}

// Verifies a watch frame: a big-endian length, then a WatchEvent holding the enveloped object.
TEST(ProtobufCodec, WatchEventFrame) {
  const json object = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}};
  common::Result<std::string> frame = encodeWatchEvent("ADDED", object);
  ASSERT_TRUE(frame.isOk()) << frame.status().message();
  common::Result<std::string> enveloped = encodeObject(object);
  ASSERT_TRUE(enveloped.isOk());
  const std::string event = bytesField(1, "ADDED") + bytesField(2, bytesField(1, *enveloped));
  const std::string length = {0, 0, static_cast<char>(event.size() >> 8),
                              static_cast<char>(event.size() & 0xff)};
  EXPECT_EQ(*frame, length + event);
}

}  // namespace
}  // namespace hetbench::kubesim::protobuf
