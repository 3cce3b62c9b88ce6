package main
import ("archive/tar";"io";"os";"path/filepath";"time")
func main(){
 abs,_:=filepath.Abs(os.Args[1])
 out,_:=os.Create(os.Args[2])
 tw:=tar.NewWriter(out)
 filepath.Walk(abs, func(p string, fi os.FileInfo, err error) error {
  if m:=fi.Mode(); !(m.IsRegular()||m.IsDir()) {return nil}
  h,_:=tar.FileInfoHeader(fi,p)
  rel,_:=filepath.Rel(abs,p); h.Name=filepath.ToSlash(rel)
  h.Gid=0;h.Uid=0;h.Uname="";h.Gname="";h.ModTime=time.Time{};h.AccessTime=time.Time{};h.ChangeTime=time.Time{}
  if err:=tw.WriteHeader(h);err!=nil{panic(err)}
  if !fi.Mode().IsRegular(){return nil}
  f,_:=os.Open(p); io.Copy(tw,f); f.Close(); return nil})
 tw.Close(); out.Close()
}
