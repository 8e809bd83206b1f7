#include "spec.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTimeZone>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>

namespace reprint::backfill {

std::vector<const Check *> Model::checksFor(const std::string &measure) const
{
    std::vector<const Check *> out;
    for (const Check &check : checks) {
        if (check.measure == measure)
            out.push_back(&check);
    }
    return out;
}

const char *toString(PublishStrategy strategy)
{
    switch (strategy) {
    case PublishStrategy::Replace: return "replace";
    case PublishStrategy::Swap: return "swap";
    case PublishStrategy::Auto: return "auto";
    }
    return "replace";
}

std::vector<std::string> Model::allMeasures() const
{
    std::vector<std::string> out{"rows"};
    out.insert(out.end(), measures.begin(), measures.end());
    return out;
}

const Model *Spec::model(const std::string &name) const
{
    for (const Model &m : models) {
        if (m.name == name)
            return &m;
    }
    return nullptr;
}

std::vector<const Model *> Spec::dependants(const std::string &name) const
{
    std::vector<const Model *> out;
    for (const Model &m : models) {
        if (std::find(m.dependsOn.begin(), m.dependsOn.end(), name) != m.dependsOn.end())
            out.push_back(&m);
    }
    return out;
}

namespace {

struct Entry {
    YAML::Node key;
    YAML::Node value;
};
using Entries = std::map<std::string, Entry>;

std::string join(std::initializer_list<const char *> names)
{
    std::string s;
    for (const char *name : names) {
        if (!s.empty())
            s += ", ";
        s += name;
    }
    return s;
}

std::string child(const std::string &path, const std::string &key)
{
    return path.empty() ? key : path + "." + key;
}

std::string item(const std::string &path, size_t index)
{
    return path + "[" + std::to_string(index) + "]";
}

const char *describe(const YAML::Node &node)
{
    switch (node.Type()) {
    case YAML::NodeType::Null: return "empty";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Undefined: break;
    }
    return "empty";
}

bool isNameStart(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isNameChar(unsigned char c)
{
    return isNameStart(c) || (c >= '0' && c <= '9');
}

// One SQL identifier at text[pos]: "quoted" (with "" for a quote; kept as written) or
// unquoted (letters, digits, _ and $, folded to lower case as PostgreSQL does).
// Advances pos past it; returns false, with `why` set, when there is none.
bool readIdentifier(const std::string &text, size_t &pos, std::string *out, std::string *why)
{
    out->clear();
    if (pos < text.size() && text[pos] == '"') {
        size_t j = pos + 1;
        for (;;) {
            if (j >= text.size()) {
                *why = "a quoted name is not closed";
                return false;
            }
            if (text[j] == '"') {
                if (j + 1 < text.size() && text[j + 1] == '"') {
                    *out += '"';
                    j += 2;
                    continue;
                }
                break;
            }
            if (text[j] == '\0') {
                *why = "a name may not contain a NUL character";
                return false;
            }
            *out += text[j++];
        }
        if (out->empty()) {
            *why = "a quoted name is empty";
            return false;
        }
        pos = j + 1;
        return true;
    }
    const auto c = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    if (pos >= text.size() || !(isNameStart(c(pos)) || c(pos) >= 0x80)) {
        *why = "a name must start with a letter or _, or be written in double quotes";
        return false;
    }
    size_t j = pos;
    while (j < text.size() && (isNameChar(c(j)) || c(j) == '$' || c(j) >= 0x80)) {
        const char ch = text[j++];
        *out += (ch >= 'A' && ch <= 'Z') ? char(ch - 'A' + 'a') : ch;
    }
    pos = j;
    return true;
}

class SpecLoader {
public:
    SpecLoader(std::string shownPath, QString directory)
        : m_file(std::move(shownPath)), m_dir(std::move(directory))
    {
    }

    std::optional<Spec> load(const YAML::Node &root, Spec spec)
    {
        if (!root.IsMap()) {
            const YAML::Mark mark = root.Mark().line >= 0 ? root.Mark() : YAML::Mark();
            fail(mark, "", std::string("the spec is ") + describe(root)
                               + " (expected a mapping with a 'models' list, and optionally 'warehouse')");
            return std::nullopt;
        }
        Entries top;
        if (!entries(root, "", {"warehouse", "models"}, &top) || !require(root, "", top, {"models"}))
            return std::nullopt;
        if (top.count("warehouse") && !string(top["warehouse"].value, "warehouse", &spec.warehouse))
            return std::nullopt;

        const YAML::Node models = top["models"].value;
        if (!models.IsSequence() || models.size() == 0) {
            fail(models, "models",
                 std::string("is ") + (models.IsSequence() ? "empty" : describe(models))
                     + " (expected a list of at least one model)");
            return std::nullopt;
        }
        std::vector<std::vector<YAML::Node>> dependsOnNodes;
        for (size_t i = 0; i < models.size(); ++i) {
            Model model;
            std::vector<YAML::Node> dependsOn;
            if (!loadModel(models[i], item("models", i), &model, &dependsOn))
                return std::nullopt;
            if (const Model *first = spec.model(model.name)) {
                fail(nameNode(models[i]), child(item("models", i), "name"),
                     "duplicate model name '" + model.name + "' (first defined at line " + std::to_string(first->line)
                         + "; model names must be unique)");
                return std::nullopt;
            }
            spec.models.push_back(std::move(model));
            dependsOnNodes.push_back(std::move(dependsOn));
        }
        if (!checkCycles(spec, dependsOnNodes))
            return std::nullopt;
        return spec;
    }

    Error error() const { return m_error.value_or(Error::make(EngineKind::Spec, m_file + ": invalid spec")); }

    bool fail(const YAML::Node &node, const std::string &path, const std::string &what)
    {
        // yaml-cpp places an empty value at the next token, often on the next line;
        // its key is where the reader should look.
        if (node.IsNull()) {
            if (const auto key = m_keyOfEmptyValue.find(path); key != m_keyOfEmptyValue.end())
                return fail(key->second, path, what);
        }
        return fail(node.Mark(), path, what);
    }

    bool fail(const YAML::Mark &mark, const std::string &path, const std::string &what)
    {
        std::string message = m_file;
        if (mark.line >= 0)
            message += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
        message += ": ";
        if (!path.empty())
            message += path + ": ";
        message += what;
        if (!m_error)
            m_error = Error::make(EngineKind::Spec, message);
        return false;
    }

private:
    static YAML::Node nameNode(const YAML::Node &model)
    {
        for (auto it = model.begin(); it != model.end(); ++it) {
            if (it->first.IsScalar() && it->first.Scalar() == "name")
                return it->second;
        }
        return model;
    }

    // The keys of a mapping, each once and each one of `allowed`.
    bool entries(const YAML::Node &map, const std::string &path, std::initializer_list<const char *> allowed,
                 Entries *out)
    {
        if (!map.IsMap())
            return fail(map, path, std::string("is ") + describe(map) + " (expected a mapping with keys "
                                       + join(allowed) + ")");
        for (auto it = map.begin(); it != map.end(); ++it) {
            const YAML::Node key = it->first;
            if (!key.IsScalar())
                return fail(key, path, std::string("a key is ") + describe(key) + " (expected one of "
                                           + join(allowed) + ")");
            const std::string name = key.Scalar();
            if (std::none_of(allowed.begin(), allowed.end(), [&](const char *a) { return name == a; }))
                return fail(key, child(path, name), "unknown key (expected one of " + join(allowed) + ")");
            if (out->count(name))
                return fail(key, child(path, name),
                            "duplicate key (first given at line "
                                + std::to_string(out->at(name).key.Mark().line + 1) + ")");
            (*out)[name] = Entry{key, it->second};
            if (it->second.IsNull())
                m_keyOfEmptyValue[child(path, name)] = key.Mark();
        }
        return true;
    }

    bool require(const YAML::Node &map, const std::string &path, const Entries &found,
                 std::initializer_list<const char *> required)
    {
        for (const char *name : required) {
            if (!found.count(name))
                return fail(map, path, std::string("missing required key '") + name + "'");
        }
        return true;
    }

    bool string(const YAML::Node &node, const std::string &path, std::string *out)
    {
        if (!node.IsScalar() || node.Scalar().empty())
            return fail(node, path, std::string("is ") + (node.IsScalar() ? "empty" : describe(node))
                                        + " (expected a non-empty string)");
        *out = node.Scalar();
        return true;
    }

    bool oneOf(const YAML::Node &node, const std::string &path, std::initializer_list<const char *> choices,
               std::string *out)
    {
        if (!string(node, path, out))
            return false;
        if (std::none_of(choices.begin(), choices.end(), [&](const char *c) { return *out == c; }))
            return fail(node, path, "'" + *out + "' is not one of " + join(choices));
        return true;
    }

    bool identifier(const YAML::Node &node, const std::string &path, std::string *out)
    {
        std::string text;
        if (!string(node, path, &text))
            return false;
        size_t pos = 0;
        std::string why;
        if (!readIdentifier(text, pos, out, &why))
            return fail(node, path, "'" + text + "' is not a column name: " + why);
        if (pos != text.size())
            return fail(node, path, "'" + text + "' is not a column name (write a name with other characters in "
                                    "double quotes, e.g. '\"Order Date\"')");
        return true;
    }

    // A list of names; a single scalar is a list of one.
    bool identifiers(const YAML::Node &node, const std::string &path, std::vector<std::string> *out,
                     std::vector<YAML::Node> *nodes = nullptr)
    {
        if (node.IsScalar()) {
            out->resize(1);
            if (nodes)
                nodes->push_back(node);
            return identifier(node, path, &out->front());
        }
        if (!node.IsSequence())
            return fail(node, path, std::string("is ") + describe(node) + " (expected a list of column names)");
        for (size_t i = 0; i < node.size(); ++i) {
            std::string name;
            if (!identifier(node[i], item(path, i), &name))
                return false;
            if (std::find(out->begin(), out->end(), name) != out->end())
                return fail(node[i], item(path, i), "'" + name + "' is listed twice");
            out->push_back(name);
            if (nodes)
                nodes->push_back(node[i]);
        }
        return true;
    }

    bool relation(const YAML::Node &node, const std::string &path, QualifiedName *out)
    {
        std::string text;
        if (!string(node, path, &text))
            return false;
        const std::string expected = " (expected schema.table; quote a part in double quotes to keep case or "
                                     "odd characters, e.g. analytics.\"Order Lines\")";
        size_t pos = 0;
        std::string why;
        if (!readIdentifier(text, pos, &out->schema, &why))
            return fail(node, path, "'" + text + "' is not a relation: " + why + expected);
        if (pos >= text.size() || text[pos] != '.')
            return fail(node, path, "'" + text + "' is not a relation" + expected);
        ++pos;
        if (!readIdentifier(text, pos, &out->table, &why))
            return fail(node, path, "'" + text + "' is not a relation: " + why + expected);
        if (pos != text.size())
            return fail(node, path, "'" + text + "' is not a relation" + expected);
        return true;
    }

    bool sqlFile(const YAML::Node &node, const std::string &path, std::string *absolute, std::string *named, std::string *text)
    {
        std::string relative;
        if (!string(node, path, &relative))
            return false;
        *named = relative;
        const QFileInfo info(QDir(m_dir), QString::fromStdString(relative));
        const QString file = QDir::cleanPath(info.absoluteFilePath());
        *absolute = file.toStdString();
        if (!info.exists())
            return fail(node, path, "file '" + relative + "' not found (looked for " + *absolute
                                        + "; paths are relative to the spec's directory)");
        if (!info.isFile())
            return fail(node, path, "'" + relative + "' is not a file (expected a SQL file)");
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly))
            return fail(node, path, "cannot read '" + relative + "': " + f.errorString().toStdString());
        *text = f.readAll().toStdString();
        if (text->find_first_not_of(" \t\r\n") == std::string::npos)
            return fail(node, path, "'" + relative + "' is empty (expected a SELECT)");
        return true;
    }

    bool positiveInt(const YAML::Node &node, const std::string &path, int *out)
    {
        int value = 0;
        if (!node.IsScalar() || !YAML::convert<int>::decode(node, value) || value < 1)
            return fail(node, path, "'" + (node.IsScalar() ? node.Scalar() : std::string(describe(node)))
                                        + "' is not a whole number of at least 1");
        *out = value;
        return true;
    }

    bool loadPartition(const YAML::Node &node, const std::string &path, Model *model)
    {
        Entries e;
        if (!entries(node, path, {"column", "grain", "timezone"}, &e) || !require(node, path, e, {"column", "grain"}))
            return false;
        if (!identifier(e["column"].value, child(path, "column"), &model->partitionColumn))
            return false;
        const YAML::Node grain = e["grain"].value;
        std::string text;
        if (!string(grain, child(path, "grain"), &text))
            return false;
        if (!parseGrain(text, &model->grain))
            return fail(grain, child(path, "grain"), "'" + text + "' is not one of hour, day, week, month");
        if (e.count("timezone")) {
            const YAML::Node tz = e["timezone"].value;
            if (!string(tz, child(path, "timezone"), &model->timezone))
                return false;
            if (!QTimeZone(QByteArray::fromStdString(model->timezone)).isValid())
                return fail(tz, child(path, "timezone"),
                            "'" + model->timezone + "' is not a known timezone (expected an IANA name such as UTC "
                                                    "or Europe/Berlin)");
        }
        return true;
    }

    bool loadCheck(const YAML::Node &node, const std::string &path, const Model &model, Check *check)
    {
        Entries e;
        if (!entries(node, path, {"name", "measure", "source", "tolerance"}, &e)
            || !require(node, path, e, {"name", "measure", "source"}))
            return false;
        if (!string(e["name"].value, child(path, "name"), &check->name))
            return false;
        const YAML::Node measure = e["measure"].value;
        if (!identifier(measure, child(path, "measure"), &check->measure))
            return false;
        if (check->measure != "rows"
            && std::find(model.measures.begin(), model.measures.end(), check->measure) == model.measures.end()) {
            std::string declared = "rows";
            for (const std::string &m : model.measures)
                declared += ", " + m;
            return fail(measure, child(path, "measure"),
                        "'" + check->measure + "' is not a measure of " + model.name + " (expected one of "
                            + declared + ")");
        }
        if (!sqlFile(e["source"].value, child(path, "source"), &check->sourceFile, &check->sourceName, &check->sql))
            return false;
        if (e.count("tolerance")) {
            const YAML::Node t = e["tolerance"].value;
            double value = 0;
            if (!t.IsScalar() || !YAML::convert<double>::decode(t, value) || !std::isfinite(value) || value < 0)
                return fail(t, child(path, "tolerance"),
                            "'" + (t.IsScalar() ? t.Scalar() : std::string(describe(t)))
                                + "' is not a relative tolerance (expected a number >= 0, e.g. 0.001)");
            check->tolerance = value;
        }
        return true;
    }

    bool loadModelName(const YAML::Node &name, const std::string &path, Model *model)
    {
        if (!string(name, path, &model->name))
            return false;
        if (!isNameStart(static_cast<unsigned char>(model->name[0]))
            || !std::all_of(model->name.begin(), model->name.end(),
                            [](char c) { return isNameChar(static_cast<unsigned char>(c)); }))
            return fail(name, path,
                        "'" + model->name + "' is not a model name (expected letters, digits and _, not starting "
                                            "with a digit)");
        return true;
    }

    bool loadKeyAndMeasures(Entries &e, const std::string &path, Model *model)
    {
        const YAML::Node key = e["key"].value;
        if (!identifiers(key, child(path, "key"), &model->key))
            return false;
        if (model->key.empty())
            return fail(key, child(path, "key"), "is empty (expected at least one column of the target's key)");
        if (e.count("measures")) {
            std::vector<YAML::Node> nodes;
            if (!identifiers(e["measures"].value, child(path, "measures"), &model->measures, &nodes))
                return false;
            for (size_t i = 0; i < model->measures.size(); ++i) {
                if (model->measures[i] == "rows")
                    return fail(nodes[i], item(child(path, "measures"), i),
                                "'rows' is always a measure (the row count); remove it from the list");
            }
        }
        return true;
    }

    // depends_on: one name or a list of them; each node is kept for the cycle check.
    bool loadDependsOn(const YAML::Node &deps, const std::string &depsPath, Model *model,
                       std::vector<YAML::Node> *dependsOn)
    {
        std::vector<YAML::Node> items;
        if (deps.IsScalar()) {
            items.push_back(deps);
        } else if (deps.IsSequence()) {
            for (size_t i = 0; i < deps.size(); ++i)
                items.push_back(deps[i]);
        } else {
            return fail(deps, depsPath, std::string("is ") + describe(deps)
                                            + " (expected a list of model names or schema.table relations)");
        }
        for (size_t i = 0; i < items.size(); ++i) {
            std::string dep;
            if (!string(items[i], deps.IsScalar() ? depsPath : item(depsPath, i), &dep))
                return false;
            model->dependsOn.push_back(dep);
            dependsOn->push_back(items[i]);
        }
        return true;
    }

    bool loadChecks(const YAML::Node &checks, const std::string &checksPath, Model *model)
    {
        if (!checks.IsSequence())
            return fail(checks, checksPath, std::string("is ") + describe(checks) + " (expected a list of checks)");
        for (size_t i = 0; i < checks.size(); ++i) {
            Check check;
            if (!loadCheck(checks[i], item(checksPath, i), *model, &check))
                return false;
            const bool duplicate = std::any_of(model->checks.begin(), model->checks.end(),
                                               [&](const Check &c) { return c.name == check.name; });
            if (duplicate)
                return fail(nameNode(checks[i]), child(item(checksPath, i), "name"),
                            "duplicate check name '" + check.name + "' in model " + model->name);
            model->checks.push_back(std::move(check));
        }
        return true;
    }

    // max_parallel, approval and publish: how the model's backfills run and publish.
    bool loadPublishing(Entries &e, const std::string &path, Model *model)
    {
        if (e.count("max_parallel") && !positiveInt(e["max_parallel"].value, child(path, "max_parallel"), &model->maxParallel))
            return false;
        std::string choice;
        if (e.count("approval")) {
            if (!oneOf(e["approval"].value, child(path, "approval"), {"single", "four_eyes"}, &choice))
                return false;
            model->approval = choice == "single" ? Approval::Single : Approval::FourEyes;
        }
        if (e.count("publish")) {
            // delete_insert: the name this key had before swap existed; it means replace.
            if (!oneOf(e["publish"].value, child(path, "publish"), {"replace", "swap", "auto", "delete_insert"}, &choice))
                return false;
            model->publish = choice == "swap" ? PublishStrategy::Swap
                             : choice == "auto" ? PublishStrategy::Auto
                                                : PublishStrategy::Replace;
        }
        return true;
    }

    bool loadModel(const YAML::Node &node, const std::string &path, Model *model, std::vector<YAML::Node> *dependsOn)
    {
        Entries e;
        if (!entries(node, path,
                     {"name", "target", "partition", "key", "measures", "transform", "depends_on", "checks",
                      "max_parallel", "approval", "publish"},
                     &e)
            || !require(node, path, e, {"name", "target", "partition", "key", "transform"}))
            return false;
        model->line = node.Mark().line + 1;

        if (!loadModelName(e["name"].value, child(path, "name"), model))
            return false;
        if (!relation(e["target"].value, child(path, "target"), &model->target)
            || !loadPartition(e["partition"].value, child(path, "partition"), model))
            return false;
        if (!loadKeyAndMeasures(e, path, model))
            return false;
        if (!sqlFile(e["transform"].value, child(path, "transform"), &model->transformFile, &model->transformName, &model->transformSql))
            return false;
        if (e.count("depends_on") && !loadDependsOn(e["depends_on"].value, child(path, "depends_on"), model, dependsOn))
            return false;
        if (e.count("checks") && !loadChecks(e["checks"].value, child(path, "checks"), model))
            return false;
        return loadPublishing(e, path, model);
    }

    // Depth-first over depends_on edges between models; the first edge that closes a
    // loop is reported where it is written.
    bool checkCycles(const Spec &spec, const std::vector<std::vector<YAML::Node>> &dependsOnNodes)
    {
        const size_t n = spec.models.size();
        std::vector<int> state(n, 0);  // 0 unvisited, 1 on the current path, 2 done
        std::vector<size_t> stack;
        const auto indexOf = [&](const std::string &name) -> std::optional<size_t> {
            for (size_t i = 0; i < n; ++i) {
                if (spec.models[i].name == name)
                    return i;
            }
            return std::nullopt;
        };
        const auto visit = [&](const auto &self, size_t m) -> bool {
            state[m] = 1;
            stack.push_back(m);
            const Model &model = spec.models[m];
            for (size_t d = 0; d < model.dependsOn.size(); ++d) {
                const std::optional<size_t> target = indexOf(model.dependsOn[d]);
                if (!target || state[*target] == 2)
                    continue;
                if (state[*target] == 1) {
                    std::string loop;
                    const auto from = std::find(stack.begin(), stack.end(), *target);
                    for (auto it = from; it != stack.end(); ++it)
                        loop += spec.models[*it].name + " -> ";
                    loop += model.dependsOn[d];
                    const std::string path = child(item("models", m), "depends_on");
                    return fail(dependsOnNodes[m][d], item(path, d),
                                "dependency cycle " + loop + " (a model cannot depend on itself, directly or "
                                                             "through other models)");
                }
                if (!self(self, *target))
                    return false;
            }
            stack.pop_back();
            state[m] = 2;
            return true;
        };
        for (size_t m = 0; m < n; ++m) {
            if (state[m] == 0 && !visit(visit, m))
                return false;
        }
        return true;
    }

    std::string m_file;
    QString m_dir;
    std::map<std::string, YAML::Mark> m_keyOfEmptyValue;
    std::optional<Error> m_error;
};

// yaml-cpp reads a quoted scalar that is never closed as running to the end of the file,
// folding every line after it into it, and reports no error: the spec would then seem to
// lack the keys that follow. The mark of the opening quote of such a scalar, if any.
std::optional<YAML::Mark> unclosedQuote(const YAML::Node &node, const std::string &text)
{
    switch (node.Type()) {
    case YAML::NodeType::Scalar: {
        const YAML::Mark mark = node.Mark();
        if (node.Tag() != "!" || mark.pos < 0 || std::size_t(mark.pos) >= text.size())
            return std::nullopt;
        const char quote = text[std::size_t(mark.pos)];
        if (quote != '"' && quote != '\'')
            return std::nullopt;
        for (std::size_t i = std::size_t(mark.pos) + 1; i < text.size(); ++i) {
            if (quote == '"' && text[i] == '\\')
                ++i;
            else if (text[i] == quote && quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'')
                ++i;
            else if (text[i] == quote)
                return std::nullopt;
        }
        return mark;
    }
    case YAML::NodeType::Sequence:
    case YAML::NodeType::Map:
        for (auto it = node.begin(); it != node.end(); ++it) {
            for (const YAML::Node &n : node.IsMap() ? std::vector<YAML::Node>{it->first, it->second} : std::vector<YAML::Node>{*it})
                if (const auto mark = unclosedQuote(n, text))
                    return mark;
        }
        return std::nullopt;
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
        break;
    }
    return std::nullopt;
}

} // namespace

Result<Spec> loadSpec(const std::string &path)
{
    const QString file = QString::fromStdString(path);
    const QFileInfo info(file);
    QFile f(file);
    if (!info.exists())
        return Error::make(EngineKind::Spec, path + ": spec file not found", "Check the --spec path.");
    if (!info.isFile() || !f.open(QIODevice::ReadOnly))
        return Error::make(EngineKind::Spec, path + ": cannot read the spec file: " + f.errorString().toStdString());
    const std::string text = f.readAll().toStdString();

    Spec spec;
    spec.path = QDir::cleanPath(info.absoluteFilePath()).toStdString();
    SpecLoader loader(path, info.absolutePath());
    try {
        const YAML::Node root = YAML::Load(text);
        if (const auto quote = unclosedQuote(root, text)) {
            const char q = text[std::size_t(quote->pos)];
            const std::string mark = q == '"' ? "\"" : "'";
            loader.fail(*quote, "", "YAML syntax error: the " + mark + " here opens a quoted string that is never closed "
                                        "(it runs to the end of the file); add the closing " + mark + " where the value ends");
            return loader.error();
        }
        if (std::optional<Spec> loaded = loader.load(root, std::move(spec)))
            return std::move(*loaded);
        return loader.error();
    } catch (const YAML::Exception &e) {
        loader.fail(e.mark, "", "YAML syntax error: " + e.msg);
        return loader.error();
    } catch (const std::exception &e) {
        return Error::make(EngineKind::Spec, path + ": " + e.what());
    }
}

} // namespace reprint::backfill
