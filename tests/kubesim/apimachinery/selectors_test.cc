#include "apimachinery/selectors.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

// A compact rendering of parsed requirements, e.g. "a in (x,y); !b".
std::string render(const LabelSelector& s) {
  std::string out;
  for (const auto& r : s.requirements()) {
    if (!out.empty()) out += "; ";
    std::string values;
    for (std::size_t i = 0; i < r.values.size(); ++i) values += (i > 0 ? "," : "") + r.values[i];
    switch (r.op) {
      case LabelSelector::Op::kEquals:
        out += r.key + "=" + values;
        break;
      case LabelSelector::Op::kNotEquals:
        out += r.key + "!=" + values;
        break;
      case LabelSelector::Op::kIn:
        out += r.key + " in (" + values + ")";
        break;
      case LabelSelector::Op::kNotIn:
        out += r.key + " notin (" + values + ")";
        break;
      case LabelSelector::Op::kExists:
        out += r.key;
        break;
      case LabelSelector::Op::kDoesNotExist:
        out += "!" + r.key;
        break;
      case LabelSelector::Op::kGreaterThan:
        out += r.key + ">" + values;
        break;
      case LabelSelector::Op::kLessThan:
        out += r.key + "<" + values;
        break;
    }
  }
  return out;
}

const std::string kNameRegex =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kValueRegex =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const std::string kPrefixRegex =
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
    "'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

// Verifies that valid label selector strings parse into key-sorted requirements with sorted,
// de-duplicated value sets, whatever the spacing.
TEST(LabelSelectorParseTest, AcceptsTheGrammar) {
  struct Case {
    std::string text;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"", ""},
      {"  \t ", ""},
      {"a=b", "a=b"},
      {"a==b", "a=b"},
      {"a!=b", "a!=b"},
      {"a=", "a="},
      {"a in (y,x,x)", "a in (x,y)"},
      {"a notin (z)", "a notin (z)"},
      {"a", "a"},
      {"!a", "!a"},
      {" a = b , c ,  ! d ", "a=b; c; !d"},
      {"x in (foo,,baz),y,z notin ()", "x in (,baz,foo); y; z notin ()"},
      {"a in (,)", "a in ()"},
      {"in in (in,notin)", "in in (in,notin)"},
      {"b=1,a=2", "a=2; b=1"},
      {"example.com/app=web", "example.com/app=web"},
      {"a>5,b<3", "a>5; b<3"},
      {"a=b,a!=c", "a=b; a!=c"},
  };
  for (const auto& c : cases) {
    auto parsed = LabelSelector::parse(c.text);
    ASSERT_TRUE(parsed.isOk()) << c.text << ": " << parsed.status().toString();
    EXPECT_EQ(render(*parsed), c.want) << c.text;
    EXPECT_EQ(parsed->empty(), c.want.empty()) << c.text;
  }
}

// Verifies every error form of the label selector parser, in the API server's words.
TEST(LabelSelectorParseTest, RejectsWithApiServerMessages) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::string ops = "expected: in, notin, =, ==, !=, gt, lt";
  const std::vector<Case> cases = {
      {"a b", "unable to parse requirement: found 'b', " + ops},
      {"a (", "unable to parse requirement: found '(', " + ops},
      {"a=b c", "found 'c', expected: ',' or 'end of string'"},
      {"a=b,", "found '', expected: identifier after ','"},
      {"a=b,,c", "found ',', expected: identifier after ','"},
      {"=b", "found '=', expected: !, identifier, or 'end of string'"},
      {",a", "found ',', expected: !, identifier, or 'end of string'"},
      {"a in x", "unable to parse requirement: found 'x' expected: '('"},
      {"a in", "unable to parse requirement: found '' expected: '('"},
      {"a in (x", "unable to parse requirement: found '', expected: ',' or ')'"},
      {"a in (x y)", "unable to parse requirement: found 'y', expected: ',' or ')'"},
      {"a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"},
      {"a in (x,=)", "unable to parse requirement: found '=', expected: ',', or identifier"},
      {"a=(b)", "unable to parse requirement: found '(', expected: identifier"},
      {"!", "unable to parse requirement: found '', expected: identifier"},
      {"!=a", "found '!=', expected: !, identifier, or 'end of string'"},
      {"!a=b", "found '=', expected: ',' or 'end of string'"},
      {"a/b/c=x",
       "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name " +
           kNameRegex +
           " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
      {"app:x",
       "unable to parse requirement: <nil>: Invalid value: \"app:x\": name part " + kNameRegex},
      {"/a",
       "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be "
       "non-empty"},
      {"a/",
       "unable to parse requirement: <nil>: Invalid value: \"a/\": name part must be "
       "non-empty; name part " +
           kNameRegex},
      {"Bad.com/a",
       "unable to parse requirement: <nil>: Invalid value: \"Bad.com/a\": " + kPrefixRegex},
      {std::string(64, 'k'), "unable to parse requirement: <nil>: Invalid value: \"" +
                                 std::string(64, 'k') +
                                 "\": name part must be no more than 63 characters"},
      {"a=-bad",
       "unable to parse requirement: values[0][a]: Invalid value: \"-bad\": " + kValueRegex},
      {"a=" + std::string(64, 'v'),
       "unable to parse requirement: values[0][a]: Invalid value: "
       "\"" +
           std::string(64, 'v') + "\": must be no more than 63 characters"},
      {"a>x",
       "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' "
       "operators, the value must be an integer"},
  };
  for (const auto& c : cases) {
    auto parsed = LabelSelector::parse(c.text);
    ASSERT_FALSE(parsed.isOk()) << c.text;
    EXPECT_TRUE(parsed.status().isInvalid()) << c.text;
    EXPECT_EQ(parsed.status().message(), c.message) << c.text;
  }
}

// Verifies matching, including that != and notin match objects without the label and that the
// integer comparisons ignore non-integer label values.
TEST(LabelSelectorMatchTest, MatchesLabels) {
  struct Case {
    std::string selector;
    json labels;
    bool want;
  };
  const json labels = {{"app", "web"}, {"tier", "front"}, {"n", "7"}};
  const std::vector<Case> cases = {
      {"", labels, true},
      {"", nullptr, true},
      {"app=web", labels, true},
      {"app=db", labels, false},
      {"app=web", nullptr, false},
      {"app!=db", labels, true},
      {"app!=web", labels, false},
      {"missing!=x", labels, true},
      {"app in (db,web)", labels, true},
      {"app in (db)", labels, false},
      {"app notin (db)", labels, true},
      {"missing notin (db)", labels, true},
      {"app notin (web)", labels, false},
      {"tier", labels, true},
      {"missing", labels, false},
      {"!missing", labels, true},
      {"!app", labels, false},
      {"app=web,tier=back", labels, false},
      {"app=web,tier=front", labels, true},
      {"n>5", labels, true},
      {"n<5", labels, false},
      {"app>5", labels, false},
      {"missing<5", labels, false},
      {"app=", json{{"app", ""}}, true},
      {"app=", json::object(), false},
  };
  for (const auto& c : cases) {
    auto parsed = LabelSelector::parse(c.selector);
    ASSERT_TRUE(parsed.isOk()) << c.selector;
    EXPECT_EQ(parsed->matches(c.labels), c.want) << c.selector << " on " << c.labels.dump();
  }
}

// Verifies metav1.LabelSelector objects: matchLabels and every matchExpressions operator, and the
// errors for wrong operators, values and keys.
TEST(LabelSelectorFromJsonTest, BuildsAndValidates) {
  struct Case {
    json object;
    std::string want;  // rendered requirements, or the error message
    bool ok;
  };
  const std::vector<Case> cases = {
      {nullptr, "", true},
      {json::object(), "", true},
      {{{"matchLabels", {{"b", "2"}, {"a", "1"}}}}, "a=1; b=2", true},
      {{{"matchExpressions",
         {{{"key", "k"}, {"operator", "In"}, {"values", {"y", "x"}}},
          {{"key", "j"}, {"operator", "NotIn"}, {"values", {"z"}}},
          {{"key", "i"}, {"operator", "Exists"}},
          {{"key", "h"}, {"operator", "DoesNotExist"}, {"values", json::array()}}}}},
       "!h; i; j notin (z); k in (y,x)",
       true},
      {{{"matchLabels", {{"a", "1"}}},
        {"matchExpressions", {{{"key", "a"}, {"operator", "Exists"}}}}},
       "a=1; a",
       true},
      {{{"matchExpressions", {{{"key", "k"}, {"operator", "In"}}}}},
       "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
       "empty",
       false},
      {{{"matchExpressions", {{{"key", "k"}, {"operator", "NotIn"}, {"values", json::array()}}}}},
       "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
       "empty",
       false},
      {{{"matchExpressions", {{{"key", "k"}, {"operator", "Exists"}, {"values", {"a", "b"}}}}}},
       "values: Invalid value: []string{\"a\", \"b\"}: values set must be empty for exists and "
       "does not exist",
       false},
      {{{"matchExpressions", {{{"key", "k"}, {"operator", "Gt"}, {"values", {"1"}}}}}},
       "\"Gt\" is not a valid label selector operator",
       false},
      {{{"matchExpressions", {{{"key", "k"}}}}},
       "\"\" is not a valid label selector operator",
       false},
      {{{"matchLabels", {{"a b", "1"}}}},
       "key: Invalid value: \"a b\": name part " + kNameRegex,
       false},
      {{{"matchLabels", {{"a b", "-"}}}},
       "[key: Invalid value: \"a b\": name part " + kNameRegex +
           ", values[0][a b]: Invalid value: \"-\": " + kValueRegex + "]",
       false},
      {{{"matchLabels", {{"a", 1}}}},
       "json: cannot unmarshal number into Go struct field LabelSelector.matchLabels of type "
       "string",
       false},
      {json::array(), "json: cannot unmarshal array into Go value of type v1.LabelSelector", false},
  };
  for (const auto& c : cases) {
    auto built = LabelSelector::fromJson(c.object);
    ASSERT_EQ(built.isOk(), c.ok) << c.object.dump() << ": " << built.status().toString();
    if (c.ok) {
      EXPECT_EQ(render(*built), c.want) << c.object.dump();
    } else {
      EXPECT_TRUE(built.status().isInvalid());
      EXPECT_EQ(built.status().message(), c.want) << c.object.dump();
    }
  }
}

// Verifies the query-string form of a selector, as labels.Selector's String() writes it (the
// Scale's status.selector and the printers' SELECTOR column).
TEST(LabelSelectorToStringTest, WritesTheQueryForm) {
  struct Case {
    json object;
    std::string want;
  };
  const std::vector<Case> cases = {
      {nullptr, ""},
      {{{"matchLabels", {{"b", "2"}, {"a", "1"}}}}, "a=1,b=2"},
      {{{"matchLabels", {{"app", "web"}}},
        {"matchExpressions",
         {{{"key", "tier"}, {"operator", "In"}, {"values", {"front", "edge"}}},
          {{"key", "env"}, {"operator", "NotIn"}, {"values", {"prod"}}},
          {{"key", "zone"}, {"operator", "Exists"}},
          {{"key", "canary"}, {"operator", "DoesNotExist"}}}}},
       "app=web,!canary,env notin (prod),tier in (edge,front),zone"},
  };
  for (const auto& c : cases) {
    auto built = LabelSelector::fromJson(c.object);
    ASSERT_TRUE(built.isOk()) << c.object.dump();
    EXPECT_EQ(built->toString(), c.want) << c.object.dump();
  }
  auto parsed = LabelSelector::parse("b!=2,a>1,c<3,d==4");
  ASSERT_TRUE(parsed.isOk());
  EXPECT_EQ(parsed->toString(), "a>1,b!=2,c<3,d=4");
}

// Verifies the metadata.labels messages for bad keys and values, and that good ones pass.
TEST(ValidateLabelTest, ReportsApiServerMessages) {
  struct Case {
    std::string key;
    std::string value;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"app", "web", {}},
      {"app.kubernetes.io/name", "my_app-1.0", {}},
      {"a", "", {}},
      {std::string(63, 'k'), std::string(63, 'v'), {}},
      {std::string(253, 'p') + "/n", "", {}},
      {"bad key", "", {"Invalid value: \"bad key\": name part " + kNameRegex}},
      {"a", "bad value", {"Invalid value: \"bad value\": " + kValueRegex}},
      {"a",
       std::string(64, 'v'),
       {"Invalid value: \"" + std::string(64, 'v') + "\": must be no more than 63 characters"}},
      {std::string(254, 'p') + "/n",
       "",
       {"Invalid value: \"" + std::string(254, 'p') +
        "/n\": prefix part must be no more than 253 characters"}},
      {"-x/",
       "-",
       {"Invalid value: \"-x/\": " + kPrefixRegex,
        "Invalid value: \"-x/\": name part must be "
        "non-empty",
        "Invalid value: \"-x/\": name part " + kNameRegex, "Invalid value: \"-\": " + kValueRegex}},
      {"a\"b", "", {"Invalid value: \"a\\\"b\": name part " + kNameRegex}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(validateLabel(c.key, c.value), c.want) << c.key << "=" << c.value;
  }
}

// Verifies field selector parsing: operators, splitting at the first operator, escapes, empty
// terms, and every error form.
TEST(FieldSelectorParseTest, ParsesAndRejects) {
  struct Case {
    std::string text;
    std::string want;  // "field=value|field!=value" in sorted term order, or the error
    bool ok;
  };
  const std::vector<Case> cases = {
      {"", "", true},
      {"metadata.name=x", "metadata.name=x", true},
      {"metadata.name==x", "metadata.name=x", true},
      {"status.phase!=Running", "status.phase!=Running", true},
      {"b=1,a=2", "a=2|b=1", true},
      {"a=x\\,y\\=z\\\\", "a=x,y=z\\", true},
      {"a!==b", "invalid field selector: unescaped character in value: 61", false},
      {"a==", "a=", true},
      {"a=b,,", "a=b", true},
      {"=", "", true},
      {"a", "invalid selector: 'a'; can't understand 'a'", false},
      {"a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'", false},
      {"a=b=c", "invalid field selector: unescaped character in value: 61", false},
      {"a=b\\x", "invalid field selector: invalid escape sequence: \\x", false},
      {"a=b\\", "invalid field selector: invalid escape sequence: \\", false},
  };
  for (const auto& c : cases) {
    auto parsed = FieldSelector::parse(c.text);
    std::string got;
    if (parsed.isOk()) {
      for (const auto& r : parsed->requirements()) {
        got += (got.empty() ? "" : "|") + r.field + (r.equals ? "=" : "!=") + r.value;
      }
    } else {
      got = parsed.status().message();
      EXPECT_TRUE(parsed.status().isInvalid());
    }
    EXPECT_EQ(parsed.isOk(), c.ok) << c.text;
    EXPECT_EQ(got, c.want) << c.text;
  }
}

// Verifies field selector matching on nested paths, with absent fields reading as "".
TEST(FieldSelectorMatchTest, MatchesNestedFields) {
  const json pod = {{"metadata", {{"name", "p1"}, {"namespace", "ns"}}},
                    {"spec", {{"nodeName", "n1"}, {"unschedulable", true}}},
                    {"status", {{"phase", "Running"}}}};
  struct Case {
    std::string selector;
    bool want;
  };
  const std::vector<Case> cases = {
      {"", true},
      {"metadata.name=p1", true},
      {"metadata.name=p2", false},
      {"metadata.name=p1,status.phase=Running", true},
      {"metadata.name=p1,status.phase!=Running", false},
      {"spec.nodeName!=", true},
      {"spec.missing=", true},
      {"spec.missing!=", false},
      {"spec.unschedulable=true", true},
      {"metadata.name.deeper=", true},
  };
  for (const auto& c : cases) {
    auto parsed = FieldSelector::parse(c.selector);
    ASSERT_TRUE(parsed.isOk()) << c.selector;
    EXPECT_EQ(parsed->matches(pod), c.want) << c.selector;
  }
}

}  // namespace
}  // namespace hetbench::kubesim
