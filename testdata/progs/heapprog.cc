// heapprog.cc - a program for the heap profile tests: allocations in and
// out of use from several call paths, with inline frames, templates, a
// namespace and an operator-- on the stacks.  Linked with tcmalloc and run
// under HEAPPROFILE=PREFIX, it writes PREFIX.0001.heap and PREFIX.0002.heap
// (heap profiler dumps) and, given an argument OUT, OUT.sample
// (MallocExtension::GetHeapSample) and OUT.growth (GetHeapGrowthStacks).
#include <gperftools/heap-profiler.h>
#include <gperftools/malloc_extension.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

static std::vector<void *> kept;

__attribute__((noinline)) static void *keep(size_t n)
{
	void *p = malloc(n);
	kept.push_back(p);
	return p;
}

__attribute__((noinline)) void small_objects(int k)
{
	for (int i = 0; i < k; i++)
		keep(32 + i % 64);
}

__attribute__((noinline)) void big_blocks(int k)
{
	for (int i = 0; i < k; i++)
		kept.push_back(new char[1 << 20]);
}

// Allocated and freed again: only in the allocation counts.
__attribute__((noinline)) void churn(int k)
{
	for (int i = 0; i < k; i++) {
		char *c = new char[4096 + i];
		c[0] = 1;
		delete[] c;
	}
}

namespace geom {
template <typename T> struct Grid {
	std::vector<T> cells;
	__attribute__((noinline)) void grow(int n)
	{
		for (int i = 0; i < n; i++)
			cells.push_back(T(i));
	}
};
}

// A countdown whose operator-- allocates: its name holds "--".
struct Countdown {
	std::vector<std::string *> left;
	inline Countdown &operator--()
	{
		left.push_back(new std::string(100, 'x'));
		return *this;
	}
};

__attribute__((noinline)) void count_down(Countdown &c, int n)
{
	for (int i = 0; i < n; i++)
		--c;
}

__attribute__((noinline)) void table(int n)
{
	static std::map<int, std::string> m;
	for (int i = 0; i < n; i++)
		m[i] = std::string(50 + i % 30, 'y');
}

int main(int argc, char **argv)
{
	static Countdown cd;
	geom::Grid<double> gd;
	geom::Grid<int> gi;

	small_objects(20000);
	big_blocks(40);
	churn(3000);
	gd.grow(200000);
	gi.grow(100000);
	count_down(cd, 5000);
	HeapProfilerDump("first");
	table(20000);
	big_blocks(8);
	if (argc > 1) {
		std::string s;

		MallocExtension::instance()->GetHeapSample(&s);
		std::ofstream(std::string(argv[1]) + ".sample") << s;
		s.clear();
		MallocExtension::instance()->GetHeapGrowthStacks(&s);
		std::ofstream(std::string(argv[1]) + ".growth") << s;
	}
	HeapProfilerDump("second");
	return 0;
}
