#include "testsupport.h"
#include <QTest>
class TestDemoSeed : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void placeholder() {}
};
QTEST_GUILESS_MAIN(TestDemoSeed)
#include "tst_demoseed.moc"
