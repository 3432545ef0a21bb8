import CorpusSupport
import Testing

@Suite("Corpus presence")
struct CorpusPresenceTests {
    @Test("the shared corpus is present under CI")
    func corpusIsPresentUnderCI() {
        if !Corpus.isAvailable {
            if Corpus.isCI {
                Issue.record("CI=true but \(Corpus.missingMessage)")
            } else {
                print("note: \(Corpus.missingMessage)")
            }
        }
    }
}
