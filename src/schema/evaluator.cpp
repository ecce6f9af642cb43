#include "schema/evaluator.hpp"

#include <pthread.h>

#include <exception>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "schema/uri.hpp"
#include "schema/values.hpp"
#include "util/text.hpp"

namespace conform::schema {

namespace {

using EnumValues = std::vector<const rapidjson::Value*>;

// The values an enum allows, as a message lists them (the first few of a long enum).
std::string allowed_values(const EnumValues& values) {
    constexpr std::size_t k_listed = 12;
    std::vector<std::string> listed;
    for (std::size_t i = 0; i < std::min(values.size(), k_listed); ++i) {
        listed.push_back(describe_value(*values[i]));
    }
    auto text = fmt::format("{}", fmt::join(listed, ", "));
    if (values.size() > k_listed) {
        text += fmt::format(" and {} more", values.size() - k_listed);
    }
    return text;
}

std::vector<std::string> string_values(const EnumValues& values) {
    std::vector<std::string> strings;
    for (const auto* value : values) {
        if (value->IsString()) {
            strings.emplace_back(value->GetString(), value->GetStringLength());
        }
    }
    return strings;
}

bool is_multiple_of(const rapidjson::Value& value, const rapidjson::Value& divisor) {
    if (divisor.IsUint64() && (value.IsUint64() || value.IsInt64())) {
        std::uint64_t d = divisor.GetUint64();
        if (value.IsUint64()) {
            return value.GetUint64() % d == 0;
        }
        auto magnitude = static_cast<std::uint64_t>(-(value.GetInt64() + 1)) + 1;
        return magnitude % d == 0;
    }
    double quotient = value.GetDouble() / divisor.GetDouble();
    if (!std::isfinite(quotient)) {
        // The quotient overflowed; fmod is exact, e.g. every integer is a multiple of 0.5.
        return std::fmod(value.GetDouble(), divisor.GetDouble()) == 0;
    }
    // Decimal divisors such as 0.01 are inexact in binary; allow for the rounding error.
    constexpr double k_relative_tolerance = 1e-9;
    return std::fabs(quotient - std::round(quotient)) <=
           k_relative_tolerance * std::max(1.0, std::fabs(quotient));
}

void append_index(std::string& path, std::size_t index) {
    std::array<char, 24> digits{};
    auto end = std::to_chars(digits.data(), digits.data() + digits.size(), index).ptr;
    path.push_back('/');
    path.append(digits.data(), end);
}

// Indexed by rapidjson::Type: null, false, true, object, array, string, number.
constexpr std::array<std::uint8_t, 7> k_type_bits{k_type_null,   k_type_boolean, k_type_boolean,
                                                  k_type_object, k_type_array,   k_type_string,
                                                  k_type_number};

bool matches_types(std::uint8_t types, const rapidjson::Value& instance) {
    std::uint8_t bits = k_type_bits[static_cast<std::size_t>(instance.GetType())];
    if ((types & bits) != 0) {
        return true;
    }
    return bits == k_type_number && (types & k_type_integer) != 0 && is_integer(instance);
}

// The lowest stack address this thread's evaluation may reach: its stack's end plus a reserve
// for the deepest leaf work (messages, formats, regexes). Frames differ in size between builds
// (sanitizers make them several times larger), so the depth count alone cannot protect the stack.
const char* stack_floor() {
    thread_local const char* floor = [] {
        constexpr std::size_t k_max_reserve = 512 * 1024;
        pthread_attr_t attributes;
        void* address = nullptr;
        std::size_t size = 0;
        if (::pthread_getattr_np(::pthread_self(), &attributes) != 0) {
            return static_cast<const char*>(nullptr);
        }
        ::pthread_attr_getstack(&attributes, &address, &size);
        ::pthread_attr_destroy(&attributes);
        if (address == nullptr || size == 0) {
            return static_cast<const char*>(nullptr);
        }
        return static_cast<const char*>(address) + std::min(k_max_reserve, size / 4);
    }();
    return floor;
}

// Set when an evaluation on this thread stopped at the stack floor rather than at the depth
// count: evaluate() then runs it again on a thread with a large stack.
thread_local bool t_stack_floor_hit = false;

bool stack_nearly_exhausted() {
    char marker = 0;
    const char* floor = stack_floor();
    const char* here = &marker;
    // Stacks grow down on every platform conform builds for.
    bool exhausted = floor != nullptr && here < floor;
    t_stack_floor_hit = t_stack_floor_hit || exhausted;
    return exhausted;
}

// Validates one instance. With k_collect it records violations with their paths; without, it
// returns at the first failure and builds no strings.
template <bool k_collect>
class Evaluator {
public:
    Evaluator(const SchemaData& data, std::vector<Violation>* out, std::size_t max_violations,
              int depth)
        : m_data(data), m_out(out), m_max(max_violations), m_depth(depth) {}

    void set_paths(std::string instance_path, std::string keyword_path) {
        m_instance_path = std::move(instance_path);
        m_keyword_path = std::move(keyword_path);
    }

    // Validates `instance` against node `id`, guarding the nesting depth.
    bool descend(NodeId id, const rapidjson::Value& instance) {
        const Node& target = m_data.nodes[id];
        // Most leaves are {"type": ...} alone: when the instance has the type there is nothing to
        // report, and neither a frame of node() nor a look at the stack is needed.
        if (target.checks == 0 && target.ref == k_no_node && !target.always_false &&
            m_depth < k_max_evaluation_depth && matches_types(target.types, instance)) {
            return true;
        }
        // The stack is looked at every few levels: the floor's reserve holds that many frames.
        constexpr int k_stack_check_interval = 8;
        if (m_depth >= k_max_evaluation_depth ||
            (m_depth % k_stack_check_interval == 0 && stack_nearly_exhausted())) {
            report("", [] {
                return fmt::format(
                    "instance is nested too deeply to validate (more than {} nested schema "
                    "evaluations)",
                    k_max_evaluation_depth);
            });
            return false;
        }
        ++m_depth;
        bool valid = node(id, instance);
        --m_depth;
        return valid;
    }

private:
    bool node(NodeId id, const rapidjson::Value& instance) {
        const Node& node = m_data.nodes[id];
        if (node.ref != k_no_node) {
            Scope scope(*this);
            scope.keyword("$ref");
            return descend(node.ref, instance);
        }
        if (node.always_false) {
            report("", [] { return std::string("no value is allowed here (false schema)"); });
            return false;
        }
        if constexpr (!k_collect) {
            if (node.property_const && shortcut_within_depth()) {
                return holds(*node.property_const, instance);
            }
        }
        bool ok = check_type(node, instance);
        if ((!ok && done()) || node.checks == 0) {
            return ok;
        }
        auto failed = [&](bool passed) {
            ok = ok && passed;
            return !passed && done();
        };
        auto has = [&](CheckBit bit) { return (node.checks & bit) != 0; };
        if ((has(k_check_const) && failed(check_const(node, instance))) ||
            (has(k_check_enum) && failed(check_enum(node, instance))) ||
            (has(k_check_number) && instance.IsNumber() &&
             failed(check_number(*node.number, instance))) ||
            (has(k_check_string) && instance.IsString() &&
             failed(check_string(*node.string, instance))) ||
            (has(k_check_array) && instance.IsArray() &&
             failed(check_array(*node.array, instance))) ||
            (has(k_check_object) && instance.IsObject() &&
             failed(check_object(*node.object, instance))) ||
            (has(k_check_logic) && failed(check_logic(node, instance)))) {
            return false;
        }
        return ok;
    }

    // Extends the instance and keyword paths while alive (collect mode only).
    class Scope {
    public:
        explicit Scope(Evaluator& evaluator)
            : m_evaluator(evaluator),
              m_instance_size(evaluator.m_instance_path.size()),
              m_keyword_size(evaluator.m_keyword_path.size()) {}
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;
        ~Scope() {
            if constexpr (k_collect) {
                m_evaluator.m_instance_path.resize(m_instance_size);
                m_evaluator.m_keyword_path.resize(m_keyword_size);
            }
        }
        Scope& keyword(std::string_view token) {
            if constexpr (k_collect) {
                append_pointer_token(m_evaluator.m_keyword_path, token);
            }
            return *this;
        }
        Scope& keyword(std::size_t index) {
            if constexpr (k_collect) {
                append_index(m_evaluator.m_keyword_path, index);
            }
            return *this;
        }
        Scope& instance(std::string_view token) {
            if constexpr (k_collect) {
                append_pointer_token(m_evaluator.m_instance_path, token);
            }
            return *this;
        }
        Scope& instance(std::size_t index) {
            if constexpr (k_collect) {
                append_index(m_evaluator.m_instance_path, index);
            }
            return *this;
        }

    private:
        Evaluator& m_evaluator;
        std::size_t m_instance_size;
        std::size_t m_keyword_size;
    };

    bool done() const {
        if constexpr (k_collect) {
            return m_out->size() >= m_max;
        } else {
            return true;
        }
    }

    template <typename MakeMessage>
    void report(std::string_view keyword, MakeMessage&& make_message) {
        if constexpr (k_collect) {
            if (m_out->size() >= m_max) {
                return;
            }
            Violation violation{m_instance_path, m_keyword_path, make_message()};
            if (!keyword.empty()) {
                append_pointer_token(violation.keyword_path, keyword);
            }
            m_out->push_back(std::move(violation));
        }
    }

    // Evaluates without recording anything, for anyOf/oneOf/not/if/contains.
    bool matches(NodeId id, const rapidjson::Value& instance) {
        Evaluator<false> quiet(m_data, nullptr, 0, m_depth);
        return quiet.descend(id, instance);
    }

    // Whether every member named `name` equals `value` (true when there is none), which is what
    // {"properties": {name: {"const": value}}} says of an object, duplicate names included.
    static bool members_equal(const rapidjson::Value& object, std::string_view name,
                              const rapidjson::Value& value) {
        for (const auto& member : object.GetObject()) {
            if (view_of(member.name) == name && !json_equal(value, member.value)) {
                return false;
            }
        }
        return true;
    }

    // The shortcuts skip at most two levels of nested evaluation; near the depth limit the
    // general path runs, so that "nested too deeply" is reached exactly where it would be.
    bool shortcut_within_depth() const { return m_depth + 2 < k_max_evaluation_depth; }

    static bool holds(const PropertyConst& test, const rapidjson::Value& instance) {
        return !instance.IsObject() || members_equal(instance, test.name, *test.value);
    }

    bool check_type(const Node& node, const rapidjson::Value& instance) {
        if (matches_types(node.types, instance)) {
            return true;
        }
        report("type", [&] {
            return fmt::format("expected {}, got {}", type_names(node.types),
                               type_name_of(instance));
        });
        return false;
    }

    bool check_const(const Node& node, const rapidjson::Value& instance) {
        if (json_equal(*node.const_value, instance)) {
            return true;
        }
        report("const", [&] {
            return fmt::format("expected {}, got {}", describe_value(*node.const_value),
                               describe_value(instance));
        });
        return false;
    }

    bool check_enum(const Node& node, const rapidjson::Value& instance) {
        for (const rapidjson::Value* allowed : node.enum_values) {
            if (json_equal(*allowed, instance)) {
                return true;
            }
        }
        report("enum", [&] {
            return fmt::format("{} is not one of the values the enum allows: {}{}",
                               describe_value(instance), allowed_values(node.enum_values),
                               instance.IsString() ? did_you_mean(view_of(instance),
                                                                  string_values(node.enum_values))
                                                   : "");
        });
        return false;
    }

    bool check_number(const NumberLimits& limits, const rapidjson::Value& instance) {
        double value = instance.GetDouble();
        bool ok = true;
        auto failed = [&](bool passed, std::string_view keyword, std::string_view relation,
                          double limit) {
            if (passed) {
                return false;
            }
            ok = false;
            report(keyword, [&] {
                return fmt::format("{} is {} {} {}", describe_value(instance), relation, keyword,
                                   limit);
            });
            return done();
        };
        if ((limits.minimum &&
             failed(value >= *limits.minimum, "minimum", "less than", *limits.minimum)) ||
            (limits.maximum &&
             failed(value <= *limits.maximum, "maximum", "greater than", *limits.maximum)) ||
            (limits.exclusive_minimum &&
             failed(value > *limits.exclusive_minimum, "exclusiveMinimum", "not greater than",
                    *limits.exclusive_minimum)) ||
            (limits.exclusive_maximum &&
             failed(value < *limits.exclusive_maximum, "exclusiveMaximum", "not less than",
                    *limits.exclusive_maximum))) {
            return false;
        }
        if (limits.multiple_of && !is_multiple_of(instance, *limits.multiple_of)) {
            report("multipleOf", [&] {
                return fmt::format("{} is not a multiple of {}", describe_value(instance),
                                   describe_value(*limits.multiple_of));
            });
            return false;
        }
        return ok;
    }

    bool check_string(const StringLimits& limits, const rapidjson::Value& instance) {
        std::string_view text = view_of(instance);
        bool ok = true;
        if (limits.min_length || limits.max_length) {
            std::size_t length = count_code_points(text);
            if (limits.min_length && length < *limits.min_length) {
                ok = false;
                report("minLength", [&] {
                    return fmt::format("string of {} characters is shorter than minLength {}",
                                       length, *limits.min_length);
                });
                if (done()) {
                    return false;
                }
            }
            if (limits.max_length && length > *limits.max_length) {
                ok = false;
                report("maxLength", [&] {
                    return fmt::format("string of {} characters is longer than maxLength {}",
                                       length, *limits.max_length);
                });
                if (done()) {
                    return false;
                }
            }
        }
        if (limits.pattern) {
            const Regex& pattern = m_data.patterns[*limits.pattern];
            MatchResult result = pattern.search(text);
            if (result != MatchResult::match) {
                ok = false;
                report("pattern", [&] {
                    if (result == MatchResult::limit_exceeded) {
                        return fmt::format(
                            "pattern match limit exceeded: {} against pattern \"{}\" (counted "
                            "as not matching)",
                            describe_value(instance), pattern.source());
                    }
                    return fmt::format("{} does not match pattern \"{}\"", describe_value(instance),
                                       pattern.source());
                });
                if (done()) {
                    return false;
                }
            }
        }
        if (!check_format(limits.format, text, limits.format_options)) {
            ok = false;
            report("format", [&] {
                auto problem = format_problem(limits.format, text, limits.format_options);
                return fmt::format(
                    "{} is not a valid {}{}{}{}", describe_value(instance),
                    format_name(limits.format),
                    limits.format_options.offset_optional ? " (offset optional)" : "",
                    problem.empty() ? "" : ": ", problem);
            });
        }
        return ok;
    }

    bool check_array(const ArrayLimits& limits, const rapidjson::Value& instance) {
        std::size_t size = instance.Size();
        bool ok = true;
        if (limits.min_items && size < *limits.min_items) {
            ok = false;
            report("minItems", [&] {
                return fmt::format("array of {} items has fewer than minItems {}", size,
                                   *limits.min_items);
            });
            if (done()) {
                return false;
            }
        }
        if (limits.max_items && size > *limits.max_items) {
            ok = false;
            report("maxItems", [&] {
                return fmt::format("array of {} items has more than maxItems {}", size,
                                   *limits.max_items);
            });
            if (done()) {
                return false;
            }
        }
        if (!check_items(limits, instance)) {
            ok = false;
            if (done()) {
                return false;
            }
        }
        if (limits.contains != k_no_node && !contains_match(limits.contains, instance)) {
            ok = false;
            report("contains", [] { return std::string("no item matches the contains schema"); });
            if (done()) {
                return false;
            }
        }
        std::size_t first = 0;
        std::size_t second = 0;
        if (limits.unique_items && find_duplicate(instance, first, second)) {
            ok = false;
            report("uniqueItems", [&] {
                return fmt::format("items {} and {} are equal, but uniqueItems is set", first,
                                   second);
            });
        }
        return ok;
    }

    bool check_items(const ArrayLimits& limits, const rapidjson::Value& instance) {
        bool ok = true;
        for (rapidjson::SizeType i = 0; i < instance.Size(); ++i) {
            Scope scope(*this);
            NodeId item = k_no_node;
            if (!limits.has_tuple_items) {
                item = limits.items;
                scope.keyword("items");
            } else if (i < limits.tuple_items.size()) {
                item = limits.tuple_items[i];
                scope.keyword("items").keyword(i);
            } else {
                item = limits.additional_items;
                scope.keyword("additionalItems");
            }
            if (item == k_no_node) {
                break;
            }
            scope.instance(i);
            if (!descend(item, instance[i])) {
                ok = false;
                if (done()) {
                    return false;
                }
            }
        }
        return ok;
    }

    bool contains_match(NodeId contains, const rapidjson::Value& instance) {
        for (const auto& item : instance.GetArray()) {
            if (matches(contains, item)) {
                return true;
            }
        }
        return false;
    }

    bool check_object(const ObjectLimits& limits, const rapidjson::Value& instance) {
        bool ok = true;
        auto failed = [&](bool passed) {
            ok = ok && passed;
            return !passed && done();
        };
        if (failed(check_property_count(limits, instance)) ||
            failed(check_required(limits.required, instance, "required")) ||
            (limits.visits_members() && failed(check_members(limits, instance))) ||
            failed(check_dependencies(limits, instance))) {
            return false;
        }
        return ok;
    }

    bool check_property_count(const ObjectLimits& limits, const rapidjson::Value& instance) {
        std::size_t count = instance.MemberCount();
        if (limits.min_properties && count < *limits.min_properties) {
            report("minProperties", [&] {
                return fmt::format("object has {} properties, fewer than minProperties {}", count,
                                   *limits.min_properties);
            });
            return false;
        }
        if (limits.max_properties && count > *limits.max_properties) {
            report("maxProperties", [&] {
                return fmt::format("object has {} properties, more than maxProperties {}", count,
                                   *limits.max_properties);
            });
            return false;
        }
        return true;
    }

    bool check_required(const std::vector<std::string_view>& required,
                        const rapidjson::Value& instance, std::string_view keyword) {
        bool ok = true;
        for (std::string_view name : required) {
            auto key = rapidjson::StringRef(name.data(), name.size());
            if (instance.FindMember(key) == instance.MemberEnd()) {
                ok = false;
                report(keyword,
                       [&] { return fmt::format("required property \"{}\" is missing", name); });
                if (done()) {
                    return false;
                }
            }
        }
        return ok;
    }

    bool check_members(const ObjectLimits& limits, const rapidjson::Value& instance) {
        bool ok = true;
        std::size_t next_property = 0;
        for (const auto& member : instance.GetObject()) {
            if (!check_member(limits, member.name, member.value, next_property)) {
                ok = false;
                if (done()) {
                    return false;
                }
            }
        }
        return ok;
    }

    // `next_property`: the index after the property the previous member matched.
    bool check_member(const ObjectLimits& limits, const rapidjson::Value& name,
                      const rapidjson::Value& value, std::size_t& next_property) {
        std::string_view key = view_of(name);
        bool ok = true;
        bool described = false;
        if (limits.property_names != k_no_node) {
            Scope scope(*this);
            scope.keyword("propertyNames").instance(key);
            if (!descend(limits.property_names, name)) {
                ok = false;
                if (done()) {
                    return false;
                }
            }
        }
        if (const PropertyEntry* property = limits.properties.find(key, next_property)) {
            next_property = limits.properties.index_of(*property) + 1;
            described = true;
            Scope scope(*this);
            scope.keyword("properties").keyword(key).instance(key);
            if (!descend(property->node, value)) {
                ok = false;
                if (done()) {
                    return false;
                }
            }
        }
        for (const PatternPropertyEntry& entry : limits.pattern_properties) {
            const Regex& pattern = m_data.patterns[entry.pattern];
            MatchResult result = pattern.search(key);
            if (result == MatchResult::limit_exceeded) {
                ok = false;
                Scope scope(*this);
                scope.keyword("patternProperties").keyword(pattern.source());
                report("", [&] {
                    return fmt::format(
                        "pattern match limit exceeded: property name \"{}\" against pattern \"{}\"",
                        key, pattern.source());
                });
                if (done()) {
                    return false;
                }
                continue;
            }
            if (result == MatchResult::no_match) {
                continue;
            }
            described = true;
            Scope scope(*this);
            scope.keyword("patternProperties").keyword(pattern.source()).instance(key);
            if (!descend(entry.node, value)) {
                ok = false;
                if (done()) {
                    return false;
                }
            }
        }
        if (!described && limits.additional_properties != k_no_node) {
            ok = check_additional_property(limits, key, value) && ok;
        }
        return ok;
    }

    bool check_additional_property(const ObjectLimits& limits, std::string_view key,
                                   const rapidjson::Value& value) {
        NodeId additional = limits.additional_properties;
        if (m_data.nodes[additional].always_false) {
            // Point at the property itself, so an error names the line of the unexpected key.
            Scope scope(*this);
            scope.instance(key);
            report("additionalProperties", [&] {
                return fmt::format(
                    "property \"{}\" is not allowed (additionalProperties is false){}", key,
                    did_you_mean(key, limits.properties.names()));
            });
            return false;
        }
        Scope scope(*this);
        scope.keyword("additionalProperties").instance(key);
        return descend(additional, value);
    }

    bool check_dependencies(const ObjectLimits& limits, const rapidjson::Value& instance) {
        bool ok = true;
        for (const DependencyEntry& dependency : limits.dependencies) {
            auto key = rapidjson::StringRef(dependency.name.data(), dependency.name.size());
            if (instance.FindMember(key) == instance.MemberEnd()) {
                continue;
            }
            Scope scope(*this);
            scope.keyword("dependencies").keyword(dependency.name);
            bool passed = dependency.node == k_no_node
                              ? check_required(dependency.required, instance, "")
                              : descend(dependency.node, instance);
            if (!passed) {
                ok = false;
                if (done()) {
                    return false;
                }
            }
        }
        return ok;
    }

    bool check_logic(const Node& node, const rapidjson::Value& instance) {
        bool ok = true;
        auto failed = [&](bool passed) {
            ok = ok && passed;
            return !passed && done();
        };
        if ((!node.all_of.empty() && failed(check_all_of(node, instance))) ||
            (!node.any_of.empty() && failed(check_any_of(node.any_of, instance))) ||
            (!node.one_of.empty() && failed(check_one_of(node.one_of, instance))) ||
            (node.not_node != k_no_node && failed(check_not(node.not_node, instance))) ||
            (node.if_node != k_no_node && failed(check_conditional(node, instance)))) {
            return false;
        }
        return ok;
    }

    bool check_all_of(const Node& node, const rapidjson::Value& instance) {
        if constexpr (!k_collect) {
            if (node.discriminated_all_of && instance.IsObject() && shortcut_within_depth()) {
                return check_discriminated(*node.discriminated_all_of, instance);
            }
        }
        const std::vector<NodeId>& branches = node.all_of;
        bool ok = true;
        for (std::size_t i = 0; i < branches.size(); ++i) {
            Scope scope(*this);
            scope.keyword("allOf").keyword(i);
            if (!descend(branches[i], instance)) {
                ok = false;
                if (done()) {
                    return false;
                }
            }
        }
        return ok;
    }

    // Each branch's `if` is one comparison of the object's key member with the branch's value,
    // and its `then` applies when that holds.
    bool check_discriminated(const DiscriminatedAllOf& all_of, const rapidjson::Value& instance) {
        for (std::size_t i = 0; i < all_of.then_nodes.size(); ++i) {
            if (all_of.then_nodes[i] == k_no_node ||
                !members_equal(instance, all_of.key, *all_of.values[i])) {
                continue;
            }
            ++m_depth;  // the branch's own level, as the general path counts it
            bool valid = descend(all_of.then_nodes[i], instance);
            --m_depth;
            if (!valid) {
                return false;
            }
        }
        return true;
    }

    bool check_any_of(const std::vector<NodeId>& branches, const rapidjson::Value& instance) {
        for (NodeId branch : branches) {
            if (matches(branch, instance)) {
                return true;
            }
        }
        report("anyOf", [&] {
            return fmt::format("value matches none of the {} anyOf alternatives", branches.size());
        });
        explain_closest_branch(branches, "anyOf", instance);
        return false;
    }

    bool check_one_of(const std::vector<NodeId>& branches, const rapidjson::Value& instance) {
        std::size_t first_match = branches.size();
        for (std::size_t i = 0; i < branches.size(); ++i) {
            if (!matches(branches[i], instance)) {
                continue;
            }
            if (first_match == branches.size()) {
                first_match = i;
                continue;
            }
            report("oneOf", [&] {
                return fmt::format(
                    "value matches oneOf alternatives {} and {}; exactly one may "
                    "match",
                    first_match, i);
            });
            return false;
        }
        if (first_match != branches.size()) {
            return true;
        }
        report("oneOf", [&] {
            return fmt::format("value matches none of the {} oneOf alternatives", branches.size());
        });
        explain_closest_branch(branches, "oneOf", instance);
        return false;
    }

    // After anyOf/oneOf matched nothing, adds the violations of the alternative that came
    // closest, which usually names the actual mistake. Closest means: the fewest failed checks
    // that mark an alternative meant for other values (a `type` of the value itself, a `const` or
    // `enum` of the value or of one of its members, the tag of a tagged union), then the fewest
    // violations. A `type` failing deeper is a mistake inside the right alternative: a
    // `{"oneOf": [{"type": "null"}, {"type": "object", ...}]}` given an object whose member has
    // the wrong type is explained by the object alternative.
    void explain_closest_branch(const std::vector<NodeId>& branches, std::string_view keyword,
                                const rapidjson::Value& instance) {
        if constexpr (k_collect) {
            if (done()) {
                return;
            }
            std::vector<Violation> closest;
            std::pair<std::size_t, std::size_t> closest_rank;
            for (std::size_t i = 0; i < branches.size(); ++i) {
                std::vector<Violation> violations;
                Evaluator<true> branch(m_data, &violations, m_max - m_out->size(), m_depth);
                std::string keyword_path = m_keyword_path;
                append_pointer_token(keyword_path, keyword);
                append_pointer_token(keyword_path, std::to_string(i));
                branch.set_paths(m_instance_path, std::move(keyword_path));
                branch.descend(branches[i], instance);
                std::pair rank{count_discriminator_failures(violations, m_instance_path),
                               violations.size()};
                if (i == 0 || rank < closest_rank) {
                    closest = std::move(violations);
                    closest_rank = rank;
                }
            }
            m_out->insert(m_out->end(), closest.begin(), closest.end());
        } else {
            (void)branches;
            (void)keyword;
            (void)instance;
        }
    }

    static std::size_t count_discriminator_failures(const std::vector<Violation>& violations,
                                                    std::string_view instance_path) {
        return static_cast<std::size_t>(std::count_if(
            violations.begin(), violations.end(), [instance_path](const Violation& violation) {
                std::string_view keyword = violation.keyword_path;
                std::string_view place = violation.instance_path;
                if (!place.starts_with(instance_path)) {
                    return false;
                }
                place.remove_prefix(instance_path.size());
                bool here = place.empty();
                bool member = !here && place.rfind('/') == 0;
                return (keyword.ends_with("/type") && here) ||
                       ((keyword.ends_with("/const") || keyword.ends_with("/enum")) &&
                        (here || member));
            }));
    }

    bool check_not(NodeId negated, const rapidjson::Value& instance) {
        if (!matches(negated, instance)) {
            return true;
        }
        report("not", [] { return std::string("value matches the schema in \"not\""); });
        return false;
    }

    bool check_conditional(const Node& node, const rapidjson::Value& instance) {
        bool condition = matches(node.if_node, instance);
        NodeId branch = condition ? node.then_node : node.else_node;
        if (branch == k_no_node) {
            return true;
        }
        Scope scope(*this);
        scope.keyword(condition ? "then" : "else");
        return descend(branch, instance);
    }

    const SchemaData& m_data;
    std::vector<Violation>* m_out;
    std::size_t m_max;
    int m_depth;
    std::string m_instance_path;
    std::string m_keyword_path;

    template <bool>
    friend class Evaluator;
};

}  // namespace

namespace {

bool evaluate_here(const SchemaData& data, const rapidjson::Value& instance,
                   std::vector<Violation>* out, std::size_t max_violations);

// Room for k_max_evaluation_depth nested evaluations in any build (sanitizers and -O0 make frames
// several times larger). Reserved, not committed: only the pages used cost memory.
constexpr std::size_t k_large_stack_bytes = 512 * 1024 * 1024;

struct LargeStackCall {
    const SchemaData* data = nullptr;
    const rapidjson::Value* instance = nullptr;
    std::vector<Violation>* out = nullptr;
    std::size_t max_violations = 0;
    bool valid = false;
    std::exception_ptr error;
};

void* evaluate_on_large_stack(void* argument) {
    auto* call = static_cast<LargeStackCall*>(argument);
    try {
        call->valid = evaluate_here(*call->data, *call->instance, call->out, call->max_violations);
    } catch (...) {
        call->error = std::current_exception();
    }
    return nullptr;
}

// Evaluates on a new thread with a large stack; false from `started` when none could be made.
bool evaluate_with_large_stack(LargeStackCall& call, bool& started) {
    pthread_attr_t attributes;
    started = false;
    if (::pthread_attr_init(&attributes) != 0) {
        return false;
    }
    pthread_t thread;
    if (::pthread_attr_setstacksize(&attributes, k_large_stack_bytes) == 0 &&
        ::pthread_create(&thread, &attributes, evaluate_on_large_stack, &call) == 0) {
        started = true;
        ::pthread_join(thread, nullptr);
    }
    ::pthread_attr_destroy(&attributes);
    if (call.error) {
        std::rethrow_exception(call.error);
    }
    return call.valid;
}

}  // namespace

// Deep instances are validated in full whatever the caller's stack: when the caller's stack runs
// low before the depth limit, the evaluation is done again on a thread with a large stack, so the
// verdict depends only on k_max_evaluation_depth, never on the build or the thread.
bool evaluate(const SchemaData& data, const rapidjson::Value& instance, std::vector<Violation>* out,
              std::size_t max_violations) {
    std::size_t first = out != nullptr ? out->size() : 0;
    t_stack_floor_hit = false;
    bool valid = evaluate_here(data, instance, out, max_violations);
    if (!t_stack_floor_hit) {
        return valid;
    }
    t_stack_floor_hit = false;
    std::vector<Violation> violations;
    LargeStackCall call;
    call.data = &data;
    call.instance = &instance;
    call.out = out != nullptr ? &violations : nullptr;
    call.max_violations = max_violations;
    bool started = false;
    bool retried = evaluate_with_large_stack(call, started);
    if (!started) {
        return valid;  // no thread to be had: the "nested too deeply" verdict stands
    }
    if (out != nullptr) {
        out->resize(first);
        out->insert(out->end(), violations.begin(), violations.end());
    }
    return retried;
}

namespace {

bool evaluate_here(const SchemaData& data, const rapidjson::Value& instance,
                   std::vector<Violation>* out, std::size_t max_violations) {
    // The fast pass decides validity; the collecting pass only runs for invalid instances.
    if (Evaluator<false>(data, nullptr, 0, 0).descend(data.root, instance)) {
        return true;
    }
    if (out == nullptr || max_violations == 0) {
        return false;
    }
    std::size_t first = out->size();
    Evaluator<true> evaluator(data, out, first + max_violations, 0);
    evaluator.descend(data.root, instance);
    return false;
}

}  // namespace

}  // namespace conform::schema
