#pragma once
// The review's rules panel: the five rules of a safe backfill (scoped, same code path,
// idempotent, isolated, validated) as five cards side by side, each with its mark (a glyph
// and a colour) and the sentence of evidence behind it. Pending until the rules are set.
//
// It shows what it is given (model::rulesOf of the stored review and its facts); it reads
// nothing itself. The panel's objectName is "rules", its cards' "rule1" .. "rule5".
//
// Thread affinity: GUI thread.

#include "reviewrules.h"

#include <QFrame>
#include <QList>

class QLabel;

namespace reprint::views {

class RulesPanel : public QFrame {
    Q_OBJECT

public:
    explicit RulesPanel(QWidget *parent = nullptr);

    // The rules in order, as model::rulesOf gives them.
    void setRules(const QList<model::RuleCheck> &rules);
    // Rule `n` (1..5) as shown: its title line, then its evidence.
    QString ruleText(int n) const;

private:
    QLabel *m_titles[5] = {};
    QLabel *m_texts[5] = {};
};

} // namespace reprint::views
